import Foundation

/// Text in a declared charset, decoded to a String: never fails, never crashes; bytes that do not decode become
/// U+FFFD. UTF-8, US-ASCII, ISO-8859-1, ISO-8859-15 and Windows-1252 are decoded here; ISO-8859-2, the other
/// Windows code pages, UTF-16/32 and the Japanese ones through Foundation; an unknown label as UTF-8.
enum Charsets {
    static func decode(_ bytes: some Collection<UInt8>, charset label: String?) -> String {
        let name = (label ?? "utf-8").trimmingSpaces().lowercased().replacingOccurrences(of: "\"", with: "")
        switch name {
        case "utf-8", "utf8", "us-ascii", "ascii", "", "unicode-1-1-utf-8":
            return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1", "latin1", "iso8859-1", "iso_8859-1", "l1", "cp819":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case "windows-1252", "cp1252", "x-cp1252":
            return String(String.UnicodeScalarView(bytes.map(windows1252)))
        case "iso-8859-15", "latin9", "latin-9", "iso8859-15":
            return String(String.UnicodeScalarView(bytes.map(latin9)))
        default:
            if let encoding = foundationEncoding(name),
                let text = String(data: Data(bytes), encoding: encoding)
            {
                return text
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func foundationEncoding(_ name: String) -> String.Encoding? {
        switch name {
        case "iso-8859-2", "latin2", "iso8859-2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "utf-32": return .utf32
        case "shift_jis", "shift-jis", "sjis", "cp932", "windows-31j": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        default: return nil
        }
    }

    /// ISO-8859-15: ISO-8859-1 with eight places changed (the euro sign among them).
    private static func latin9(_ byte: UInt8) -> Unicode.Scalar {
        let changed: [UInt8: UInt32] = [
            0xA4: 0x20AC, 0xA6: 0x0160, 0xA8: 0x0161, 0xB4: 0x017D, 0xB8: 0x017E, 0xBC: 0x0152, 0xBD: 0x0153,
            0xBE: 0x0178,
        ]
        return changed[byte].flatMap(Unicode.Scalar.init) ?? Unicode.Scalar(byte)
    }

    /// Windows-1252: ISO-8859-1 but for 0x80–0x9F, which carry typographic characters (undefined ones U+FFFD).
    private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        let table: [UInt32] = [
            0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
            0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
            0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
        ]
        return Unicode.Scalar(table[Int(byte - 0x80)]) ?? "\u{FFFD}"
    }
}
