/** Digests (SHA-256) behind the job's fingerprints and content-named files; no Flink, no other Fanout package. */
package io.fanout.digest;
