package io.fanout.connectors.typeinfo;

import io.fanout.connectors.message.EncodedMessage;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The Flink type of a stream of {@link EncodedMessage}s that may be borrowed ({@link EncodedMessageSerializer}):
 * what a producer of borrowed messages declares its output to be.
 */
public final class EncodedMessageTypeInfo extends TypeInformation<EncodedMessage> {
    private static final long serialVersionUID = 1L;
    public static final EncodedMessageTypeInfo TYPE = new EncodedMessageTypeInfo();

    private EncodedMessageTypeInfo() {}

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<EncodedMessage> getTypeClass() {
        return EncodedMessage.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<EncodedMessage> createSerializer(SerializerConfig config) {
        return EncodedMessageSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "EncodedMessage";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof EncodedMessageTypeInfo;
    }

    @Override
    public int hashCode() {
        return EncodedMessageTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof EncodedMessageTypeInfo;
    }
}
