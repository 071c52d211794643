package io.fanout.flink.partitioned;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.OutputTag;

/**
 * The stages' side-output tags, each made once per class loader: making a tag analyses its type (Flink's POJO
 * analysis, by reflection), and a stage emits on its tag once per batch and hop (or fetch round), which made the
 * analysis a few percent of a partitioned job's CPU.
 */
final class SideOutputs {
    private static final ConcurrentHashMap<String, OutputTag<?>> TAGS = new ConcurrentHashMap<>();

    private SideOutputs() {}

    /** The tag {@code id} of elements of {@code type}. */
    @SuppressWarnings("unchecked")
    static <T> OutputTag<T> tag(String id, Class<T> type) {
        OutputTag<?> tag = TAGS.computeIfAbsent(id, name -> new OutputTag<>(name, TypeInformation.of(type)));
        if (!tag.getTypeInfo().getTypeClass().equals(type)) {
            throw new IllegalArgumentException("side output " + id + " is of " + tag.getTypeInfo() + ", not " + type);
        }
        return (OutputTag<T>) tag;
    }
}
