package io.fanout.connectors.channel.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The channel's endpoint registry: a directory of {@code endpoint-<index>.json} files, each written
 * atomically (temp file + rename) so a reader never sees half a file. The files carry the access
 * token, so the directory is owner-only (0700) and every file 0600.
 */
public final class EndpointRegistry {
    private static final Pattern FILE = Pattern.compile("endpoint-(\\d+)\\.json");
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private final Path dir;

    public EndpointRegistry(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    /** The file of endpoint {@code index}. */
    public Path fileOf(int index) {
        return dir.resolve("endpoint-" + index + ".json");
    }

    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");

    /**
     * Writes (or replaces) the entry of {@code info.index()} atomically, creating the directory if
     * needed; directory 0700, file 0600 (where the file system has POSIX permissions).
     */
    public void write(EndpointInfo info) throws IOException {
        Files.createDirectories(dir);
        ownerOnly(dir, OWNER_DIR);
        Path target = fileOf(info.index());
        Path tmp = Files.createTempFile(dir, ".endpoint-" + info.index() + "-", ".tmp");
        try {
            ownerOnly(tmp, OWNER_FILE);
            Files.write(tmp, JSON.writeValueAsBytes(info));
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void ownerOnly(Path p, Set<PosixFilePermission> perms) throws IOException {
        try {
            if (!Files.getPosixFilePermissions(p).equals(perms)) {
                Files.setPosixFilePermissions(p, perms);
            }
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system (e.g. Windows): nothing to tighten
        }
    }

    /**
     * The entry of endpoint {@code index}, or empty if its file does not exist (yet).
     *
     * @throws IOException naming the file when it is unreadable or not a valid entry
     */
    public Optional<EndpointInfo> read(int index) throws IOException {
        Path file = fileOf(index);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(parse(file, bytes));
    }

    /** Every entry in the directory, sorted by index; empty if the directory does not exist. */
    public List<EndpointInfo> readAll() throws IOException {
        List<EndpointInfo> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        List<Integer> indices = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(p -> {
                Matcher m = FILE.matcher(p.getFileName().toString());
                if (m.matches()) {
                    indices.add(Integer.parseInt(m.group(1)));
                }
            });
        }
        indices.sort(null);
        for (int i : indices) {
            read(i).ifPresent(out::add);
        }
        return out;
    }

    private static EndpointInfo parse(Path file, byte[] bytes) throws IOException {
        EndpointInfo info;
        try {
            info = JSON.readValue(bytes, EndpointInfo.class);
        } catch (JsonProcessingException e) {
            throw new IOException("invalid endpoint registry file " + file + ": " + e.getOriginalMessage() + " in "
                    + new String(bytes, StandardCharsets.UTF_8), e);
        }
        if (info.host() == null || info.state() == null || info.port() < 0 || info.port() > 65535 || info.index() < 0
                || info.numEndpoints() <= info.index()) {
            throw new IOException("invalid endpoint registry file " + file + ": " + new String(bytes, StandardCharsets.UTF_8));
        }
        return info;
    }
}
