package io.fanout.sampling.ppr;

import io.fanout.sampling.TopK;
import java.util.Arrays;

/**
 * One seed's typed PPR selection (GiGL's typed merge, see {@link TypedPprSampler}) over the nodes its channels'
 * pushes touched, whichever push computed them: {@link TypedPprSampler} (memory store, global indices) and
 * {@link TypedPprBatchPush} (lists fetched in rounds, node keys) fill the same candidates, so the same nodes, weight
 * rows and order come out. Candidates are offered channel by channel; the result does not depend on their order
 * (every ranking is by value, ties to the smaller node).
 *
 * <p>Not thread-safe: scratch reused from seed to seed.
 */
final class TypedPprSelection {
    private final int numChannels;
    private final boolean typed;
    private final int[] targets;
    private final int maxPprNodes;
    private final boolean residualTopUp;
    private final TopK topK;

    private int numCand;
    private long[] candNode = new long[64];
    private double[] candScore = new double[64 * 2];
    private double[] candResidual = new double[64 * 2];
    private int[] candHop = new int[64 * 2];
    private int[] candChannel = new int[64];
    private boolean[] candSelected = new boolean[64];

    private long[] selNodes = new long[16];
    private int[] selCand = new int[16];
    private double[] selWeights = new double[16];
    private int[] selChannel = new int[16];
    private int numSelected;

    /** @param typed whether the channels are --ppr-channels (weight rows per channel) or the one walk without */
    TypedPprSelection(int numChannels, boolean typed, int[] targets, int maxPprNodes, boolean residualTopUp,
            int topKCapacity) {
        this.numChannels = numChannels;
        this.typed = typed;
        this.targets = targets;
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        this.topK = new TopK(topKCapacity);
    }

    /** Width of a weight row. */
    int columns() {
        return typed ? 2 + 3 * numChannels : 2;
    }

    /** Starts a seed: no candidates. */
    void clear() {
        numCand = 0;
    }

    /** A new candidate (no channel reached it yet); returns its index. */
    int addCandidate(long node) {
        int ci = numCand++;
        grow(numCand);
        final int c = numChannels;
        candNode[ci] = node;
        candSelected[ci] = false;
        Arrays.fill(candScore, ci * c, ci * c + c, 0);
        Arrays.fill(candResidual, ci * c, ci * c + c, 0);
        Arrays.fill(candHop, ci * c, ci * c + c, -1);
        return ci;
    }

    /** What channel {@code ch}'s push left at candidate {@code ci}. */
    void set(int ci, int ch, double score, double residual, int hop) {
        int k = ci * numChannels + ch;
        candScore[k] = score;
        candResidual[k] = residual;
        candHop[k] = hop;
    }

    private void grow(int n) {
        if (n > candNode.length) {
            int cap = Math.max(n, candNode.length * 2);
            int c = numChannels;
            candNode = Arrays.copyOf(candNode, cap);
            candChannel = Arrays.copyOf(candChannel, cap);
            candSelected = Arrays.copyOf(candSelected, cap);
            candScore = Arrays.copyOf(candScore, cap * c);
            candResidual = Arrays.copyOf(candResidual, cap * c);
            candHop = Arrays.copyOf(candHop, cap * c);
        }
    }

    int numSelected() {
        return numSelected;
    }

    long selectedNode(int i) {
        return selNodes[i];
    }

    double selectedWeight(int i, int col) {
        return selWeights[i * columns() + col];
    }

    int selectedChannel(int i) {
        return selChannel[i];
    }

    /** Selects among the candidates; returns how many were selected, best first. */
    int select() {
        final int c = numChannels;
        int[] taken = new int[c];
        // Attribution: a pushed node to the channel of its highest settled score, a discovered-only node (top-up)
        // to the channel of its highest residual; ties to the earlier channel.
        for (int ci = 0; ci < numCand; ci++) {
            boolean pushed = pushedAnywhere(ci);
            double[] key = pushed ? candScore : candResidual;
            int best = -1;
            if (pushed || residualTopUp) {
                for (int ch = 0; ch < c; ch++) {
                    double k = key[ci * c + ch];
                    if (k > 0 && (best < 0 || k > key[ci * c + best])) {
                        best = ch;
                    }
                }
            }
            candChannel[ci] = best;
        }
        // Each channel up to its target, pushed nodes first, then (top-up) discovered ones; then free slots to the
        // best remaining nodes of any channel, pushed first.
        int count = 0;
        for (int pass = 0; pass < 4 && count < maxPprNodes; pass++) {
            boolean pushedPass = pass == 0 || pass == 2;
            if (!pushedPass && !residualTopUp) {
                continue;
            }
            double[] key = pushedPass ? candScore : candResidual;
            if (pass < 2) {
                for (int ch = 0; ch < c && count < maxPprNodes; ch++) {
                    int room = Math.min(targets[ch] - taken[ch], maxPprNodes - count);
                    if (room <= 0) {
                        continue;
                    }
                    topK.reset(room);
                    for (int ci = 0; ci < numCand; ci++) {
                        if (!candSelected[ci] && candChannel[ci] == ch && pushedAnywhere(ci) == pushedPass) {
                            topK.offerTagged(candNode[ci], key[ci * c + ch], ci);
                        }
                    }
                    int got = drainSelected();
                    taken[ch] += got;
                    count += got;
                }
            } else {
                topK.reset(maxPprNodes - count);
                for (int ci = 0; ci < numCand; ci++) {
                    if (!candSelected[ci] && candChannel[ci] >= 0 && pushedAnywhere(ci) == pushedPass) {
                        topK.offerTagged(candNode[ci], key[ci * c + candChannel[ci]], ci);
                    }
                }
                count += drainSelected();
            }
        }
        // Weight rows, then best first by the reported value.
        final int w = columns();
        topK.reset(count);
        for (int ci = 0; ci < numCand; ci++) {
            if (candSelected[ci]) {
                topK.offerTagged(candNode[ci], value(ci, bestChannel(ci)), ci);
            }
        }
        if (selNodes.length < count) {
            selNodes = new long[count];
            selCand = new int[count];
            selChannel = new int[count];
        }
        if (selWeights.length < count * w) {
            selWeights = new double[count * w];
        }
        numSelected = drainBestFirst(selCand);
        for (int i = 0; i < numSelected; i++) {
            int ci = selCand[i];
            selNodes[i] = candNode[ci];
            selChannel[i] = typed ? candChannel[ci] : 0;
            int minHop = Integer.MAX_VALUE;
            int row = i * w;
            for (int ch = 0; ch < c; ch++) {
                int h = candHop[ci * c + ch];
                if (h >= 0) {
                    minHop = Math.min(minHop, h);
                }
                if (typed) {
                    selWeights[row + 2 + 3 * ch] = h >= 0 ? value(ci, ch) : 0;
                    selWeights[row + 3 + 3 * ch] = h >= 0 ? 1.0 / (1 + h) : 0;
                    selWeights[row + 4 + 3 * ch] = h >= 0 ? 1 : 0;
                }
            }
            selWeights[row] = value(ci, bestChannel(ci));
            selWeights[row + 1] = 1.0 / (1 + minHop);
        }
        return numSelected;
    }

    private boolean pushedAnywhere(int ci) {
        for (int ch = 0; ch < numChannels; ch++) {
            if (candScore[ci * numChannels + ch] > 0) {
                return true;
            }
        }
        return false;
    }

    private int drainSelected() {
        int n = topK.size();
        int[] cands = new int[n];
        drainBestFirst(cands);
        for (int i = 0; i < n; i++) {
            candSelected[cands[i]] = true;
        }
        return n;
    }

    /**
     * Drains the heap best first into candidate indices: each offer's tag (the heap ranks nodes, ties to the smaller
     * node; a candidate's node is distinct within a seed).
     */
    private int drainBestFirst(int[] out) {
        return topK.drainTagsBestFirst(out);
    }

    /** A channel's reported value of a candidate: settled score, plus the residual with the top-up. */
    private double value(int ci, int ch) {
        int k = ci * numChannels + ch;
        return candScore[k] + (residualTopUp ? candResidual[k] : 0);
    }

    private int bestChannel(int ci) {
        int best = 0;
        for (int ch = 1; ch < numChannels; ch++) {
            if (value(ci, ch) > value(ci, best)) {
                best = ch;
            }
        }
        return best;
    }
}
