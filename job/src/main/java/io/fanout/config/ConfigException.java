package io.fanout.config;

/** A job option or configuration file is invalid; the message names the option and the value. */
public class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
