import AuthCrypto
import Foundation

/// The POSIX ustar format of `postern backup`'s archive, so that an operator can also list or unpack one with
/// `tar -tf` / `tar -xf`: regular files only, names under 100 bytes, sizes under 8 GiB (11 octal digits).
/// Pure: headers are built and read as bytes; the file I/O is ``BackupArchiveWriter`` and ``BackupArchiveReader``.
enum BackupArchive {
    /// One header or padding block.
    static let blockSize = 512
    /// The largest size eleven octal digits hold.
    static let maximumFileSize: Int64 = 0o77777777777

    /// Why an archive could not be written or read.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The header block of a regular file `name` of `size` bytes, mode 0600.
    static func header(name: String, size: Int64, modifiedAt: Int64) throws(Failure) -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard !nameBytes.isEmpty, nameBytes.count < 100, !name.hasPrefix("/"), !name.split(separator: "/").contains("..")
        else { throw Failure("cannot archive the name \(name)") }
        guard size >= 0, size <= maximumFileSize else { throw Failure("\(name) is larger than an archive entry holds") }
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) { block.replaceSubrange(offset..<offset + bytes.count, with: bytes) }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(nameBytes, at: 0)
        put(octal(0o600, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)  // uid
        put(octal(0, width: 8), at: 116)  // gid
        put(octal(size, width: 12), at: 124)
        put(octal(max(0, modifiedAt), width: 12), at: 136)
        put(Array("        ".utf8), at: 148)  // the checksum counts its own field as spaces
        put([UInt8(ascii: "0")], at: 156)  // regular file
        put(Array("ustar".utf8) + [0] + Array("00".utf8), at: 257)
        let sum = block.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7) + [UInt8(ascii: " ")], at: 148)
        return block
    }

    /// One entry's header as read: nil for the zero block that ends an archive.
    static func parse(header block: [UInt8]) throws(Failure) -> (name: String, size: Int64)? {
        guard block.count == blockSize else { throw Failure("the archive ends inside a header") }
        if block.allSatisfy({ $0 == 0 }) { return nil }
        var copy = block
        copy.replaceSubrange(148..<156, with: Array("        ".utf8))
        guard let recorded = octal(block[148..<156]), recorded == copy.reduce(0, { $0 + Int64($1) }) else {
            throw Failure("an archive header is damaged (checksum)")
        }
        guard block[156] == UInt8(ascii: "0") || block[156] == 0 else {
            throw Failure("the archive holds something other than regular files")
        }
        let nameField = block[0..<100].prefix { $0 != 0 }
        guard let name = String(bytes: nameField, encoding: .utf8), !name.isEmpty, !name.hasPrefix("/"),
            !name.split(separator: "/").contains(".."), let size = octal(block[124..<136])
        else { throw Failure("an archive header is damaged (name or size)") }
        return (name, size)
    }

    /// The bytes of zero padding after `size` bytes of content.
    static func padding(after size: Int64) -> Int {
        let remainder = Int(size % Int64(blockSize))
        return remainder == 0 ? 0 : blockSize - remainder
    }

    /// An octal number field: digits, then NUL or space padding.
    private static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        let digits = field.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != 0 && $0 != UInt8(ascii: " ") }
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) else {
            return nil
        }
        return Int64(String(decoding: digits, as: UTF8.self), radix: 8)
    }
}

/// Writes an archive to a new file (mode 0600), entry by entry, copying files in chunks.
final class BackupArchiveWriter {
    private let handle: FileHandle
    private let modifiedAt: Int64

    /// Creates `path`, which must not exist.
    init(creating path: String, modifiedAt: Int64) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackupArchive.Failure("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.modifiedAt = modifiedAt
    }

    /// Adds an entry holding `bytes`.
    func add(_ name: String, bytes: [UInt8]) throws {
        try handle.write(contentsOf: try BackupArchive.header(name: name, size: Int64(bytes.count), modifiedAt: modifiedAt))
        try handle.write(contentsOf: bytes)
        try handle.write(contentsOf: [UInt8](repeating: 0, count: BackupArchive.padding(after: Int64(bytes.count))))
    }

    /// Adds an entry with the content of the file at `path`, read in chunks.
    /// - Returns: the entry's size and the SHA-256 of its content.
    func add(_ name: String, file path: String) throws -> (size: Int64, sha256: [UInt8]) {
        guard let source = FileHandle(forReadingAtPath: path) else { throw BackupArchive.Failure("cannot read \(path)") }
        defer { try? source.close() }
        let size = Int64(try source.seekToEnd())
        try source.seek(toOffset: 0)
        try handle.write(contentsOf: try BackupArchive.header(name: name, size: size, modifiedAt: modifiedAt))
        let hasher = SHA256Hasher()
        var left = size
        while left > 0 {
            guard let chunk = try source.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty else {
                throw BackupArchive.Failure("\(path) changed size while it was archived")
            }
            hasher.update(chunk)
            try handle.write(contentsOf: chunk)
            left -= Int64(chunk.count)
        }
        try handle.write(contentsOf: [UInt8](repeating: 0, count: BackupArchive.padding(after: size)))
        return (size, hasher.finish())
    }

    /// Writes the two zero blocks that end an archive, flushes it to disk and closes it.
    func finish() throws {
        try handle.write(contentsOf: [UInt8](repeating: 0, count: 2 * BackupArchive.blockSize))
        try handle.synchronize()
        try handle.close()
    }
}

/// Reads an archive entry by entry.
final class BackupArchiveReader {
    private let handle: FileHandle

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BackupArchive.Failure("cannot read \(path)")
        }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// The next entry's name and size, nil at the end of the archive.
    func next() throws -> (name: String, size: Int64)? {
        let block = [UInt8](try handle.read(upToCount: BackupArchive.blockSize) ?? Data())
        if block.isEmpty { return nil }
        return try BackupArchive.parse(header: block)
    }

    /// Hands the current entry's `size` bytes to `body` in chunks, then skips its padding.
    func content(size: Int64, _ body: ([UInt8]) throws -> Void) throws {
        var left = size
        while left > 0 {
            guard let chunk = try handle.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty else {
                throw BackupArchive.Failure("the archive ends inside an entry")
            }
            try body([UInt8](chunk))
            left -= Int64(chunk.count)
        }
        let padding = BackupArchive.padding(after: size)
        if padding > 0 { _ = try handle.read(upToCount: padding) }
    }
}
