package io.fanout.connectors.channel.registry;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One endpoint's registry entry ({@code endpoint-<index>.json}): where a channel sink subtask
 * listens and whether it still serves. Unknown fields are ignored so newer writers stay readable.
 *
 * @param version protocol version the endpoint speaks
 * @param index sink subtask index
 * @param numEndpoints sink parallelism: the number of registry files of the complete set
 * @param host address clients connect to
 * @param port TCP port
 * @param state serving or finished
 * @param jobId Flink job id of the writer (may be null); a restarted endpoint that finds its own job's file "finished" knows an earlier attempt delivered everything
 * @param token access token clients send in HELLO (may be null: then clients need it from elsewhere)
 * @param tls true when the endpoint serves TLS only; written only then (absent or false = plain TCP)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"version", "index", "num_endpoints", "host", "port", "state", "job_id", "token", "tls"})
public record EndpointInfo(
        @JsonProperty("version") int version,
        @JsonProperty("index") int index,
        @JsonProperty("num_endpoints") int numEndpoints,
        @JsonProperty("host") String host,
        @JsonProperty("port") int port,
        @JsonProperty("state") State state,
        @JsonProperty("job_id") String jobId,
        @JsonProperty("token") String token,
        @JsonProperty("tls") Boolean tls) {

    public EndpointInfo {
        // Plain endpoints leave the field out, as files written before TLS existed do.
        tls = Boolean.TRUE.equals(tls) ? Boolean.TRUE : null;
    }

    /** A plain-TCP endpoint. */
    public EndpointInfo(int version, int index, int numEndpoints, String host, int port, State state, String jobId, String token) {
        this(version, index, numEndpoints, host, port, state, jobId, token, null);
    }

    /** Lifecycle of an endpoint as seen by clients. */
    public enum State {
        /** Accepting clients and delivering messages. */
        @JsonProperty("serving")
        SERVING,
        /** Input ended and every buffered message was delivered: a client treats it as done. */
        @JsonProperty("finished")
        FINISHED
    }

    /** The same endpoint in another state. */
    public EndpointInfo withState(State newState) {
        return new EndpointInfo(version, index, numEndpoints, host, port, newState, jobId, token, tls);
    }

    /** Whether the endpoint serves TLS only (clients must verify it with the CA of its certificate). */
    public boolean servesTls() {
        return Boolean.TRUE.equals(tls);
    }

    /** {@code host:port}, for logs and errors. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
