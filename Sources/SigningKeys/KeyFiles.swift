#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// POSIX file operations for the key directory: private modes, atomic replacement, EINTR retried.
enum KeyFiles {
    /// Calls `body` until it does not fail with EINTR.
    static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    static func failure(_ operation: String, _ path: String, _ code: Int32 = errno) -> KeyStoreError {
        KeyStoreError(.io, "\(operation) \(path): \(String(cString: strerror(code)))")
    }

    /// Creates `path` and missing parents with `mode`; an existing directory is kept, and tightened to
    /// `mode` when it is the last component and allows more.
    static func makeDirectory(_ path: String, mode: mode_t) throws(KeyStoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, component) in components.enumerated() {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw failure("mkdir", prefix) }
            if index == components.count - 1 {
                var info = stat()
                guard lstat(prefix, &info) == 0 else { throw failure("stat", prefix) }
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw KeyStoreError(.io, "\(prefix) is not a directory")
                }
                if info.st_mode & 0o777 & ~mode != 0, chmod(prefix, mode) != 0 { throw failure("chmod", prefix) }
            }
        }
    }

    /// The contents of `path`, or nil when it does not exist. Refuses symlinks and files over `limit`.
    /// A file readable or writable by group or others (copied in by hand, say) is tightened to 0600.
    static func readFile(_ path: String, limit: Int = 64 * 1024) throws(KeyStoreError) -> [UInt8]? {
        let descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeyStoreError(.corrupt, "\(path) is not a regular file") }
        if info.st_mode & 0o077 != 0, fchmod(descriptor, 0o600) != 0 { throw failure("fchmod", path) }
        var contents = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                var count: Int
                repeat { count = read(descriptor, buffer.baseAddress, buffer.count) } while count < 0 && errno == EINTR
                return count
            }
            if count < 0 { throw failure("read", path) }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[0..<count])
            guard contents.count <= limit else { throw KeyStoreError(.corrupt, "\(path) is larger than expected") }
        }
    }

    /// Writes `bytes` to `descriptor` completely, then fsyncs.
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], _ path: String) throws(KeyStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            offset += written
        }
        guard retrying({ fsync(descriptor) }) == 0 else { throw failure("fsync", path) }
    }

    /// Creates a new file with mode 0600 (set at creation, before any byte is written) and writes it.
    /// Fails when the file exists.
    static func createPrivate(_ path: String, _ bytes: [UInt8]) throws(KeyStoreError) {
        let descriptor = retrying { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard descriptor >= 0 else { throw failure("create", path) }
        defer { close(descriptor) }
        // The umask can only remove bits; make the mode exact anyway.
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("fchmod", path) }
        try writeAll(descriptor, bytes, path)
    }

    /// Replaces `path` atomically (temporary file with mode 0600, fsync, rename, fsync of the directory).
    static func replacePrivate(_ path: String, _ bytes: [UInt8], directory: String) throws(KeyStoreError) {
        let temporary = path + ".tmp"
        if unlink(temporary) != 0 && errno != ENOENT { throw failure("unlink", temporary) }
        try createPrivate(temporary, bytes)
        guard rename(temporary, path) == 0 else { throw failure("rename", temporary) }
        syncDirectory(directory)
    }

    /// Best-effort fsync of a directory, so that a rename or create survives power loss.
    static func syncDirectory(_ directory: String) {
        let descriptor = retrying { open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY) }
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Removes `path`, ignoring a missing file.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Runs `body` holding an exclusive `flock` on `path`, so that a `postern keys rotate` and a
    /// starting server never write the key directory at the same time.
    /// The names of the files in `directory` but hidden ones (the lock), nil when it cannot be opened.
    static func names(in directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix("."), entry.pointee.d_type == DT_REG || entry.pointee.d_type == DT_UNKNOWN {
                names.append(name)
            }
        }
        return names
    }

    static func withExclusiveLock<Result>(
        _ path: String, _ body: () throws(KeyStoreError) -> Result
    ) throws(KeyStoreError) -> Result {
        let descriptor = retrying { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        guard retrying({ flock(descriptor, LOCK_EX) }) == 0 else { throw failure("flock", path) }
        defer { _ = flock(descriptor, LOCK_UN) }
        return try body()
    }
}
