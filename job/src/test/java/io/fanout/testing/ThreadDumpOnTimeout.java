package io.fanout.testing;

import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Prints every thread's stack when a test fails by its JUnit timeout, so a hang seen only in CI shows where
 * the job, the channel and the reader were waiting (register with {@code @ExtendWith}).
 */
public final class ThreadDumpOnTimeout implements TestExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (throwable instanceof TimeoutException) {
            StringBuilder dump = new StringBuilder("=== thread dump: " + context.getDisplayName() + " timed out ===\n");
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                Thread t = e.getKey();
                dump.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement frame : e.getValue()) {
                    dump.append("    at ").append(frame).append('\n');
                }
            }
            System.err.println(dump);
        }
        throw throwable;
    }
}
