package io.fanout.connectors.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-checks the codec against the official reader and writer, {@code safetensors.numpy}, when a
 * python3 with the safetensors package is on this machine (skipped otherwise).
 */
class SafetensorsPythonInteropTest {
    @TempDir
    Path dir;

    private static String run(Path script, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 2];
        cmd[0] = "python3";
        cmd[1] = script.toString();
        System.arraycopy(args, 0, cmd, 2, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private static boolean safetensorsAvailable() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import safetensors.numpy").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void officialReaderLoadsOurBlobsAndWeDecodeItsOutput() throws Exception {
        assumeTrue(safetensorsAvailable(), "python3 with safetensors not available");
        TensorMessage m = new TensorMessage()
                .putInt64(MessageKeys.IDS, new int[] {7, 42, -1})
                .putInt64(MessageKeys.IS_HETERO, 0)
                .putInt64(MessageKeys.META_EDGE_INDEX, new long[] {0, 0, 0, 1, 2, 0}, 2, 3)
                .putFloat64(MessageKeys.META_EDGE_ATTR, new double[] {0.5, 1, 0.25, 0.5, 0.125, 0.5}, 3, 2)
                .putFloat32("f32", new float[] {1.5f})
                .putInt32("i32", new int[] {-3})
                .putInt64("empty", new long[0])
                .put("scalar", Tensor.scalarFloat64(2.5))
                .put("bool", Tensor.ofBytes(DType.BOOL, new long[] {2}, new byte[] {1, 0}))
                .put("f16", Tensor.ofBytes(DType.F16, new long[] {1}, new byte[] {0x00, 0x3c}))
                .putString(MessageKeys.SAMPLING_ERROR, "näh \"quoted\"");
        Path blob = dir.resolve("java.safetensors");
        Files.write(blob, SafetensorsCodec.encode(m));
        Path script = dir.resolve("check.py");
        Files.writeString(script, String.join("\n",
                "import sys, numpy as np",
                "from safetensors.numpy import load, save",
                "d = load(open(sys.argv[1], 'rb').read())",
                "assert d['ids'].dtype == np.int64 and d['ids'].tolist() == [7, 42, -1], d['ids']",
                "assert d['#IS_HETERO'].tolist() == [0]",
                "assert d['#META.edge_index'].shape == (2, 3) and d['#META.edge_index'].tolist() == [[0, 0, 0], [1, 2, 0]]",
                "assert d['#META.edge_attr'].dtype == np.float64 and d['#META.edge_attr'][1].tolist() == [0.25, 0.5]",
                "assert d['f32'].dtype == np.float32 and d['i32'].tolist() == [-3]",
                "assert d['empty'].shape == (0,) and d['scalar'].shape == () and float(d['scalar']) == 2.5",
                "assert d['bool'].dtype == np.bool_ and d['bool'].tolist() == [True, False]",
                "assert d['f16'].dtype == np.float16 and d['f16'].tolist() == [1.0]",
                "assert bytes(d['#SAMPLING_ERROR']).decode() == 'näh \"quoted\"'",
                "out = save({'rows': np.array([[1, 2], [3, 4]], dtype=np.int64), 'w': np.array([0.5], dtype=np.float64),",
                "            'z': np.zeros((0, 3), dtype=np.float32)}, metadata={'k': 'v'})",
                "open(sys.argv[2], 'wb').write(out)",
                "print('ok', len(d))"));
        Path fromPython = dir.resolve("python.safetensors");
        assertThat(run(script, blob.toString(), fromPython.toString())).contains("ok 11");

        TensorMessage back = SafetensorsCodec.decode(Files.readAllBytes(fromPython));
        assertThat(back.names()).containsExactly("rows", "w", "z");
        assertThat(back.get("rows").shape()).containsExactly(2, 2);
        assertThat(back.get("rows").asLongArray()).containsExactly(1, 2, 3, 4);
        assertThat(back.get("w").asDoubleArray()).containsExactly(0.5);
        assertThat(back.get("z").shape()).containsExactly(0, 3);
    }
}
