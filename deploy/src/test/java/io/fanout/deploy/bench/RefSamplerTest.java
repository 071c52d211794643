package io.fanout.deploy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference sampler's process gets glibc's huge-page tunable exactly when the benchmark's JVM has huge pages. */
class RefSamplerTest {
    private static final List<String> PRINT_TUNABLES = List.of("/bin/sh", "-c", "echo tunables=${GLIBC_TUNABLES:-none}");

    @Test
    void aChildProcessSeesTheTunableOnlyWithHugePages() throws Exception {
        String given = System.getenv("GLIBC_TUNABLES");
        assertEquals(RefSampler.withHugePages(given),
                RefSampler.runParsed(RefSampler.command(PRINT_TUNABLES, true)).get("tunables"));
        assertEquals(given == null || given.isEmpty() ? "none" : given,
                RefSampler.runParsed(RefSampler.command(PRINT_TUNABLES, false)).get("tunables"));
    }

    @Test
    void keepsTunablesTheUserGave() {
        assertEquals("glibc.malloc.hugetlb=1", RefSampler.withHugePages(null));
        assertEquals("glibc.malloc.hugetlb=1", RefSampler.withHugePages(" "));
        assertEquals("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
                RefSampler.withHugePages("glibc.malloc.arena_max=2"));
    }
}
