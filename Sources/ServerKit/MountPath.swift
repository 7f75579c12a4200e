/// Where an operator may mount a surface under the public URL (`POSTERN_MAILTM_PATH`, `POSTERN_MAILCX_PATH`).
public enum MountPath {
    /// Whether `path` can mount a surface: `/` then segments of unreserved URL characters (letters, digits, `-`,
    /// `.`, `_`, `~`), no empty segment, no `/` at the end, at most 200 bytes.
    public static func isValid(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.count >= 2, bytes.count <= 200, bytes.first == UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/")
        else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            let unreserved =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("-._~".utf8).contains(byte)
            let slash = byte == UInt8(ascii: "/")
            guard unreserved || slash, !(slash && previous == UInt8(ascii: "/")) else { return false }
            previous = byte
        }
        return true
    }
}
