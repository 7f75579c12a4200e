import Foundation

/// The permission bits of the file at `path` (`0o600`, ...), or nil when it cannot be read.
public func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// Runs `body` with the umask at 0o022 (what a shell usually gives), so that a test of file modes does not depend
/// on its runner's; restores the old one after.
public func withUmask022<T>(_ body: () throws -> T) rethrows -> T {
    let old = umask(0o022)
    defer { umask(old) }
    return try body()
}
