package io.fanout.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** A job option or configuration file is invalid; the message names the option and the value. */
public class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The short reason of an I/O failure ("no such file", "permission denied", the system's reason) without
     * the path: Java's messages are often just the path, which the option's message already names.
     */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        return e.getMessage();
    }
}
