package io.fanout.flink.partitioned;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One PPR fetch round's neighbour lookup over its own copy of the lists in keyed state (keyed by node, RocksDB):
 * input 1 loads each node's list as a push reads it, built once for all rounds by {@link PprListOperator} (in
 * list order, capped to {@code num_neighbors_per_hop}, with each neighbour's degree), input 2 asks for a node's
 * list and gets it back by one point read. A node without edges has no list: it is answered as dangling. Requests
 * come grouped per batch, round and subtask ({@link PprFetchRequest}): each node is read under its own key and the
 * group's lists go back as one record ({@link PprAnswerGroup}).
 *
 * <p>As {@link NeighborLookupOperator}, a request that arrives while lists still load waits in keyed state and is
 * answered when the list input ends.
 */
public class PprFetchOperator extends AbstractStreamOperator<PprAnswerGroup>
        implements TwoInputStreamOperator<PprNodeList, PprFetchRequest, PprAnswerGroup>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-requests";

    private transient ValueState<PprNodeList> list;
    private transient ListState<PprFetchRequest> waiting;
    private transient boolean listsDone;

    @Override
    public void open() throws Exception {
        super.open();
        list = getRuntimeContext().getState(new ValueStateDescriptor<>("ppr-list", TypeInformation.of(PprNodeList.class)));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING,
                TypeInformation.of(PprFetchRequest.class)));
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        listsDone = true;
        KeyedDrain.drain(this, WAITING, waiting, this::answer);
    }

    @Override
    public void processElement1(StreamRecord<PprNodeList> element) throws Exception {
        list.update(element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<PprFetchRequest> element) throws Exception {
        if (listsDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(PprFetchRequest request) throws Exception {
        int n = request.nodes.length;
        int[] degrees = new int[n];
        int[] ends = new int[n];
        LongArrayList neighbors = new LongArrayList();
        IntArrayList neighborDegrees = new IntArrayList();
        for (int i = 0; i < n; i++) {
            RequestRouting.toKey(this, request.nodes[i]);
            PprNodeList stored = list.value();
            if (stored != null) {
                degrees[i] = stored.degree;
                neighbors.addElements(neighbors.size(), stored.neighbors);
                neighborDegrees.addElements(neighborDegrees.size(), stored.neighborDegrees);
            }
            ends[i] = neighbors.size();
        }
        output.collect(new StreamRecord<>(new PprAnswerGroup(request.batchKey, request.nodes, degrees, ends,
                neighbors.toLongArray(), neighborDegrees.toIntArray())));
    }
}
