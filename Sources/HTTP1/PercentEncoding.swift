/// Percent-encoding of a query component, the inverse of ``PercentDecoding``: what the pages put in `Location`
/// headers and links (`next=`, OAuth redirects).
public enum PercentEncoding {
    /// `text` with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`) written `%XX`.
    public static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// `name=value` pairs joined with `&`, each name and value encoded: a query, or an
    /// `application/x-www-form-urlencoded` body (where `%20` reads as a space like `+`).
    public static func query(_ parameters: [(String, String)]) -> String {
        parameters.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// `base` with `parameters` appended to its query (`?` or `&`), each name and value encoded.
    public static func appending(_ parameters: [(String, String)], to base: String) -> String {
        base + (base.contains("?") ? "&" : "?") + query(parameters)
    }
}
