/** Flink type information of the wire-format records: the serializer of owned and borrowed encoded messages. */
package io.fanout.connectors.typeinfo;
