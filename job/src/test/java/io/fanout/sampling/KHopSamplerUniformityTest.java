package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.fanout.graph.CsrGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Chi-square tests that {@link KHopSampler} picks neighbour positions uniformly across batches.
 *
 * <p>Each batch samples a star's centre once; batches differ only by batchId, so this also checks that
 * the per-batch streams behave as independent uniform draws. Fixed seeds keep the test deterministic;
 * the 0.999 critical value makes a false alarm on a correct sampler a one-in-a-thousand seed choice.
 */
class KHopSamplerUniformityTest {
    private static final double Z_999 = 3.090232306167813; // standard normal 0.999 quantile

    /** Upper {@code 0.999} quantile of chi-square with {@code k} degrees of freedom (Wilson-Hilferty). */
    static double chiSquareCritical999(int k) {
        double a = 2.0 / (9.0 * k);
        double cube = 1 - a + Z_999 * Math.sqrt(a);
        return k * cube * cube * cube;
    }

    @Test
    void wilsonHilfertyMatchesTabulatedQuantiles() {
        // chi2.ppf(0.999, k) from tables; Wilson-Hilferty is within 1.5% from k = 4 on
        // (2.3% at k = 2), and above the true value at these k (errs towards accepting).
        assertThat(chiSquareCritical999(2)).isCloseTo(13.816, withinPercentage(2.5));
        assertThat(chiSquareCritical999(4)).isCloseTo(18.467, withinPercentage(1.5));
        assertThat(chiSquareCritical999(9)).isCloseTo(27.877, withinPercentage(1));
        assertThat(chiSquareCritical999(19)).isCloseTo(43.820, withinPercentage(0.5));
        assertThat(chiSquareCritical999(59)).isCloseTo(98.324, withinPercentage(0.5));
        assertThat(chiSquareCritical999(99)).isCloseTo(148.230, withinPercentage(0.5));
    }

    /**
     * Without replacement each batch includes exactly f of d positions, so the per-position counts are
     * not multinomial: with p = f/d, Var = N p(1-p) and Cov = -N p(1-p)/(d-1). Scaling the Pearson sum by
     * N p(1-p) d/(d-1) instead of the expected count makes it exactly chi-square with d-1 degrees of
     * freedom in the limit (for f = 1 this is the usual statistic).
     */
    @ParameterizedTest(name = "degree {0}, fanout {1}")
    @CsvSource({"20, 5", "7, 1", "60, 30", "100, 99"})
    void withoutReplacementEveryPositionIsPickedWithFrequencyFanoutOverDegree(int degree, int fanout) {
        int batches = 20_000;
        long[] counts = new long[degree];
        CsrGraph star = Graphs.star(degree);
        KHopSampler sampler = new KHopSampler(star, new int[] {fanout}, false);
        for (int batch = 0; batch < batches; batch++) {
            SampledSubgraph s = sampler.sample(new int[] {0}, 31337, 0, batch);
            assertThat(s.cols()).hasSize(fanout);
            for (int c : s.cols()) {
                counts[s.ids()[c] - 1]++; // neighbour i+1 sits at position i
            }
        }
        double p = (double) fanout / degree;
        double expected = batches * p;
        double scale = batches * p * (1 - p) * degree / (degree - 1);
        double statistic = 0;
        for (long count : counts) {
            statistic += (count - expected) * (count - expected) / scale;
        }
        assertThat(statistic).as("chi-square over %d positions", degree).isLessThan(chiSquareCritical999(degree - 1));
    }

    @ParameterizedTest(name = "degree {0}, fanout {1}")
    @CsvSource({"20, 5", "3, 10", "40, 40"})
    void withReplacementEveryDrawIsUniformOverPositions(int degree, int fanout) {
        int batches = 10_000;
        long[] counts = new long[degree];
        CsrGraph star = Graphs.star(degree);
        KHopSampler sampler = new KHopSampler(star, new int[] {fanout}, true);
        for (int batch = 0; batch < batches; batch++) {
            SampledSubgraph s = sampler.sample(new int[] {0}, 4242, 1, batch);
            assertThat(s.cols()).hasSize(fanout);
            for (int c : s.cols()) {
                counts[s.ids()[c] - 1]++;
            }
        }
        double expected = (double) batches * fanout / degree; // multinomial: plain Pearson statistic
        double statistic = 0;
        for (long count : counts) {
            statistic += (count - expected) * (count - expected) / expected;
        }
        assertThat(statistic).isLessThan(chiSquareCritical999(degree - 1));
    }

    /** Uniform positions are necessary, not sufficient: every f-subset must be equally likely too. */
    @Test
    void withoutReplacementEverySubsetIsEquallyLikely() {
        int degree = 5;
        int batches = 20_000;
        long[] counts = new long[1 << degree];
        KHopSampler sampler = new KHopSampler(Graphs.star(degree), new int[] {2}, false);
        for (int batch = 0; batch < batches; batch++) {
            SampledSubgraph s = sampler.sample(new int[] {0}, 77, 2, batch);
            int subset = 0;
            for (int c : s.cols()) {
                subset |= 1 << (s.ids()[c] - 1);
            }
            assertThat(Integer.bitCount(subset)).as("two distinct positions").isEqualTo(2);
            counts[subset]++;
        }
        double expected = batches / 10.0; // C(5,2) = 10 subsets
        double statistic = 0;
        for (int subset = 0; subset < counts.length; subset++) {
            if (Integer.bitCount(subset) == 2) {
                statistic += (counts[subset] - expected) * (counts[subset] - expected) / expected;
            }
        }
        assertThat(statistic).isLessThan(chiSquareCritical999(9));
    }

    /** The test has teeth: a mild bias (one position 10% more likely) is far above the critical value. */
    @Test
    void chiSquareRejectsABiasedSampler() {
        int degree = 20;
        long batches = 20_000;
        double p = 5.0 / degree;
        double expected = batches * p;
        double scale = batches * p * (1 - p) * degree / (degree - 1);
        double statistic = Math.pow(expected * 0.1, 2) / scale + Math.pow(expected * 0.1, 2) / scale;
        assertThat(statistic).isGreaterThan(chiSquareCritical999(degree - 1));
    }
}
