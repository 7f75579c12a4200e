#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Owner-only modes for the database's files, which hold mail, password hashes and stored secrets.
///
/// SQLite creates a database file with 0644 less the umask, so in a 0755 directory anyone on the host could read
/// it. It creates the `-wal`, `-shm` and `-journal` files with the database file's own mode, whatever the umask
/// (`robust_open` in its unix VFS), so a database file made 0600 before SQLite opens it is enough for new files.
enum PrivateFiles {
    /// The files SQLite keeps next to a database.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Creates `path` with mode 0600 when it does not exist, and takes group and other access off it and off its
    /// companion files when they have some (left by an older version, or by a crash before a checkpoint).
    ///
    /// Failures are left for SQLite to report when it opens the file (a directory it cannot write, say); a mode
    /// it cannot change (a file of another user) is left as it is.
    /// - Returns: the paths whose mode was tightened (not the one just created).
    static func prepareDatabase(at path: String) -> [String] {
        var tightened: [String] = []
        var descriptor = retrying { open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        if descriptor >= 0 {
            // The umask can only take bits away (and 0o277 would leave the owner unable to write): set it exactly.
            _ = fchmod(descriptor, 0o600)
            close(descriptor)
        } else if errno == EEXIST {
            descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC) }
            if descriptor >= 0 {
                if restrict(descriptor) { tightened.append(path) }
                close(descriptor)
            }
        }
        for suffix in companionSuffixes {
            // Never follow a link here: these names are SQLite's, a link in their place is not.
            let companion = retrying { open(path + suffix, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            guard companion >= 0 else { continue }
            if restrict(companion) { tightened.append(path + suffix) }
            close(companion)
        }
        return tightened
    }

    /// Clears the group and other bits of a regular file; true when there were some and they are gone.
    private static func restrict(_ descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 else {
            return false
        }
        return fchmod(descriptor, info.st_mode & 0o700) == 0
    }

    /// Calls `body` until it does not fail with EINTR.
    private static func retrying(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
