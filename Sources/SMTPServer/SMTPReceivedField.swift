import Time

/// The `Received:` trace field this server puts on top of every message it takes (RFC 5321 section 4.4: an SMTP
/// server must), as the sink stores it: `from` the name the client gave in `HELO`/`EHLO` with its address (the
/// client a PROXY header named, when the listener is behind a balancer), `by` this server's name, `with` the
/// protocol (RFC 3848: `ESMTP`, `ESMTPS` with TLS, `ESMTPA`/`ESMTPSA` with `AUTH`, `SMTP` after `HELO`), `for` the
/// recipient when there is only one (naming one of several would tell each recipient of the others), and the time.
/// Pure: the time is given.
///
/// A `HELO` name that is not a domain or an address literal is written `unknown`, and a recipient with anything
/// but printable ASCII is left out, so the field is always one well-formed, folded header field.
public struct SMTPReceivedField: Sendable, Equatable {
    /// The field, folded, ending CRLF.
    public let text: String

    /// - Parameters:
    ///   - envelope: the transaction: client address, `HELO` name, TLS, `AUTH`, recipients.
    ///   - hostname: this server's name (the greeting's), cut to printable ASCII as the greeting cuts it.
    ///   - time: Unix seconds, when the message was taken.
    public init(envelope: SMTPEnvelope, hostname: String, time: Int64) {
        let helo = Self.isDomainOrLiteral(envelope.heloName) ? envelope.heloName : "unknown"
        var with = envelope.extended ? "ESMTP" : "SMTP"
        if envelope.extended && envelope.secured { with += "S" }
        if envelope.extended && envelope.authenticatedAs != nil { with += "A" }
        var text = "Received: from \(helo) (\(Self.addressLiteral(envelope.remoteAddress)))\r\n"
        let by = String(decoding: hostname.utf8.filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
        text += "\tby \(by) (Postern) with \(with)"
        if envelope.recipients.count == 1, let recipient = envelope.recipients.first,
            !recipient.isEmpty, recipient.utf8.count <= 254, recipient.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        {
            text += "\r\n\tfor <\(recipient)>"
        }
        text += ";\r\n\t\(RFC5322Date.format(time))\r\n"
        self.text = text
    }

    /// The field's bytes, to put before the message.
    public var bytes: [UInt8] { Array(text.utf8) }

    /// `[192.0.2.1]`, `[IPv6:2001:db8::1]` (RFC 5321 section 4.1.3); `[unknown]` for anything that is no address.
    static func addressLiteral(_ address: String) -> String {
        let allowed = address.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
                || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F")) || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: ":")
        }
        guard allowed, !address.isEmpty, address.utf8.count <= 45 else { return "[unknown]" }
        return address.contains(":") ? "[IPv6:\(address)]" : "[\(address)]"
    }

    /// A domain (letters, digits, `-`, `.`, labels of 1 to 63, at most 253) or an address literal of printable
    /// ASCII without brackets or backslashes inside.
    static func isDomainOrLiteral(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"), bytes.count > 2 {
            return bytes.dropFirst().dropLast().allSatisfy {
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]")
                    && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: ")")
            }
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { byte in
                    let lower = byte | 0x20
                    return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                }
        }
    }
}
