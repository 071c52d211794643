package io.fanout.flink.operator;

import io.fanout.batch.SeedTimes;
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.store.GraphSpec;

/**
 * What the k-hop operators of plain and typed graphs both take beyond their fanouts, set before the job starts:
 * replacement and the seed of the draws, disjoint trees, the seeds' times for temporal sampling, and link seeds with
 * their negatives.
 *
 * @param <F> the operator's own type, so the setters chain
 */
public abstract class AbstractKHopFunction<F extends AbstractKHopFunction<F>> extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    protected final boolean replace;
    protected final long seed;

    /** One tree per seed (PyG {@code disjoint=True}); implied by seed times. */
    protected boolean disjoint;
    /** The seeds' times for temporal sampling, or null. */
    protected SeedTimes seedTimes;
    protected boolean temporalLast;

    /** Link prediction: batches are positions into these seed edges, or null. */
    protected LinkSeeds links;
    protected NegativeSampling negatives = NegativeSampling.NONE;
    protected double amount;

    protected AbstractKHopFunction(GraphSpec spec, boolean replace, long seed) {
        super(spec);
        this.replace = replace;
        this.seed = seed;
    }

    @SuppressWarnings("unchecked")
    private F self() {
        return (F) this;
    }

    /** One tree per seed (PyG {@code disjoint=True}) instead of one de-duplicated subgraph per batch. */
    public F disjoint(boolean disjoint) {
        this.disjoint |= disjoint; // seed times set first keep their trees
        return self();
    }

    /**
     * Temporal sampling (the adjacency sorted by its time column): every seed at {@code seedTime} (null: none),
     * strategy last or uniform; implies {@link #disjoint}, as in PyG.
     */
    public F temporal(Long seedTime, boolean last) {
        this.seedTimes = seedTime == null ? seedTimes : SeedTimes.every(seedTime);
        this.temporalLast = last;
        this.disjoint |= seedTime != null;
        return self();
    }

    /** Temporal sampling with a time per seed, indexed by the seed's input position ({@code #META.input_id}). */
    public F seedTimes(long[] timesByInputPosition) {
        this.seedTimes = timesByInputPosition == null ? null : SeedTimes.byInputPosition(timesByInputPosition);
        this.disjoint |= timesByInputPosition != null; // temporal sampling is disjoint
        return self();
    }

    /**
     * Link prediction (PyG's {@code LinkNeighborLoader}): batches are positions into {@code links}, sampled around
     * their endpoints and negatives together; {@code amount} negatives per positive (binary: in total, rounded up;
     * triplet: per positive, a whole number).
     */
    public F withLinkSeeds(LinkSeeds links, NegativeSampling negatives, double amount) {
        this.links = links;
        this.negatives = negatives;
        this.amount = amount;
        return self();
    }
}
