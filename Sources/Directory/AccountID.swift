/// Account ids as the surfaces mint them: lower-case UUIDs.
public enum AccountID {
    /// Whether `text` is a UUID in lower-case 8-4-4-4-12 hexadecimal form: a cheap guard before a lookup.
    public static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            {
                return false
            }
        }
        return true
    }
}
