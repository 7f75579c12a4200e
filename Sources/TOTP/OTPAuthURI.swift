/// The `otpauth://totp/` URI an authenticator app reads from a QR code (Google Authenticator's key URI format, which
/// every app follows):
/// `otpauth://totp/<issuer>:<account>?secret=<base32>&issuer=<issuer>&algorithm=SHA1&digits=6&period=30`.
public struct OTPAuthURI: Sendable, Equatable {
    /// Who issues the codes (the server's name, shown above the code in the app).
    public var issuer: String
    /// Whose codes (the owner's email).
    public var account: String
    /// The shared secret.
    public var secret: [UInt8]
    /// The code parameters (digits, period).
    public var totp: TOTP

    /// Memberwise.
    public init(issuer: String, account: String, secret: [UInt8], totp: TOTP = TOTP()) {
        self.issuer = issuer
        self.account = account
        self.secret = secret
        self.totp = totp
    }

    /// The URI: the label `issuer:account` and every parameter percent-encoded (RFC 3986 unreserved characters
    /// only left as they are, so a `:`, `@`, `&` or space in a name cannot change the URI's shape); the secret in
    /// base32 without padding.
    public var text: String {
        let label = Self.encoded(issuer) + ":" + Self.encoded(account)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret, padded: false))&issuer=\(Self.encoded(issuer))"
            + "&algorithm=SHA1&digits=\(totp.digits)&period=\(totp.period)"
    }

    /// `text` with every byte outside RFC 3986's unreserved set (`A–Z a–z 0–9 - . _ ~`) as `%XX`.
    static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
