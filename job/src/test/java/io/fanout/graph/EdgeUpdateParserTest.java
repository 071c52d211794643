package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Update lines become stored-edge updates as the graph's rows do, versions commit in order, bad lines are named. */
class EdgeUpdateParserTest {
    private final List<String> seen = new ArrayList<>();
    private final EdgeUpdateParser.Sink sink = new EdgeUpdateParser.Sink() {
        @Override
        public void update(long node, long neighbor, boolean add, long version, long sequence, boolean primary,
                String where) {
            seen.add((add ? "+" : "-") + node + ">" + neighbor + "@" + version + "#" + sequence + (primary ? "" : "'")
                    + " " + where);
        }

        @Override
        public void commit(long version) {
            seen.add("commit " + version);
        }
    };

    @Test
    void undirectedRowsGiveBothDirectionsAndAHigherVersionCommitsThePrevious() throws Exception {
        EdgeUpdateParser p = new EdgeUpdateParser(false, EdgeDirection.OUT, 0);
        p.line("u", 1, "# header", sink);
        p.line("u", 2, "1 + 4 5", sink);
        p.line("u", 3, "1\t-\t6\t6", sink);
        p.line("u", 4, "3 + 7 8", sink);
        p.endOfFile(sink);
        assertThat(seen).containsExactly("+4>5@1#1 u line 2", "+5>4@1#1' u line 2", "-6>6@1#2 u line 3", "commit 1",
                "+7>8@3#3 u line 4", "+8>7@3#3' u line 4", "commit 3");
        assertThat(p.committed()).isEqualTo(3);
    }

    @Test
    void directedInEdgesAndIdBase() throws Exception {
        EdgeUpdateParser p = new EdgeUpdateParser(true, EdgeDirection.IN, 1);
        p.line("u", 1, "2 + 4 5", sink);
        p.line("u", 2, "2", sink);
        assertThat(seen).containsExactly("+4>3@2#1 u line 1", "commit 2");
    }

    @Test
    void badLinesNameSourceAndLine() throws Exception {
        EdgeUpdateParser p = new EdgeUpdateParser(false, EdgeDirection.OUT, 1);
        assertThatThrownBy(() -> p.line("socket h:1", 7, "1 * 2 3", sink)).isInstanceOf(GraphFormatException.class)
                .hasMessage("socket h:1 line 7: op '*': expected + (add) or - (delete)");
        assertThatThrownBy(() -> p.line("f", 1, "1 + 2", sink))
                .hasMessage("f line 1: 3 fields: expected 'version op src dst' (op + or -), or 'version' alone to commit it");
        assertThatThrownBy(() -> p.line("f", 2, "0 + 2 3", sink)).hasMessage("f line 2: version 0 is below 1 (0 is the loaded graph)");
        assertThatThrownBy(() -> p.line("f", 3, "1 + 0 3", sink)).hasMessage("f line 3: src id 0 is below id_base=1");
        assertThatThrownBy(() -> p.line("f", 4, "1 + -2 3", sink)).hasMessage("f line 4: negative src id -2");
        assertThatThrownBy(() -> p.line("f", 5, "", sink)).hasMessageStartingWith("f line 5: empty line");
        p.line("f", 6, "5 + 2 3", sink);
        assertThatThrownBy(() -> p.line("f", 7, "4 + 2 3", sink))
                .hasMessage("f line 7: version 4 after version 5: versions must not decrease");
        p.line("f", 8, "5", sink);
        assertThatThrownBy(() -> p.line("f", 9, "5 - 2 3", sink)).hasMessageStartingWith("f line 9: version 5 is already committed");
    }
}
