import AuthCrypto
import EmailAddresses
import MIME
import MailAuth
import Time

/// Makes a submitted message ready to leave (pure: the text, the envelope, the clock and the signer in; the bytes to
/// send out): every line ending CRLF; every `Bcc` field removed (its addresses are envelope-only, RFC 5322 §3.6.3);
/// `Date` and `Message-ID` added when absent; a `Received` trace line on top (RFC 5321 §4.4, in the shape a local
/// submission gets: no `from` clause, so neither the agent's address nor its client's IP is disclosed; no `for`
/// clause, which would name a recipient to every other one); then the DKIM signatures of the sender's domain (RSA and
/// Ed25519, RFC 6376 and RFC 8463), which cover the fields as sent.
///
/// Before anything is signed, the originators of the bytes that leave are read again (``Originators``, strictly)
/// and every `From` and `Sender` mailbox must be the envelope sender: the submission's check ran on the message as
/// stored, and this one runs on what line-end repair made of it, so no byte that reads as a line end only after
/// preparation can put another `From` under the sender's signature.
public struct OutboundMessagePreparer: Sendable {
    /// This host's public name (`by` of the `Received` line, the right side of a `Message-ID` added here).
    public let hostname: String

    /// A preparer for `hostname`.
    public init(hostname: String) {
        self.hostname = hostname.lowercased()
    }

    /// The message as it leaves.
    /// - Parameters:
    ///   - content: the message as submitted (any line ends).
    ///   - queueID: the queue's id of the message: the `Received` line's `id`, and the local part of a `Message-ID`
    ///     made here, so that every destination of one message gets the same one.
    ///   - now: Unix seconds, for `Received` and a missing `Date`.
    ///   - sender: the envelope sender, the only mailbox `From`, `Sender`, `Resent-From` and `Resent-Sender` may name.
    ///   - signer: the sender domain's DKIM signer; nil sends the message unsigned.
    /// - Throws: ``OutboundPreparationError/originators(_:)`` when the prepared header names anyone else or cannot be
    ///   read strictly; ``OutboundPreparationError/signing(_:)`` when a signature cannot be made.
    public func prepare(_ content: [UInt8], queueID: String, sender: String, now: Int64, signer: DKIMSigner?)
        throws(OutboundPreparationError) -> [UInt8]
    {
        let (fields, body) = Self.split(Self.crlf(content))
        var kept = fields.filter { $0.name.lowercased() != "bcc" }
        let names = Set(kept.map { $0.name.lowercased() })
        let date = RFC5322Date.format(now)
        if !names.contains("date") { kept.append(HeaderField(name: "Date", text: "Date: \(date)\r\n")) }
        if !names.contains("message-id") {
            let id = "Message-ID: <\(Self.messageIDLocalPart(queueID))@\(hostname)>\r\n"
            kept.append(HeaderField(name: "Message-ID", text: id))
        }
        let message = Array(kept.map(\.text).joined().utf8) + [13, 10] + body
        try Self.checkOriginators(message, sender: sender)
        let received =
            "Received: by \(hostname) (Postern) with HTTP id \(Self.messageIDLocalPart(queueID));\r\n\t\(date)\r\n"
        let signatures: String
        do {
            signatures = try signer?.signatureFields(for: message) ?? ""
        } catch {
            throw .signing(error)
        }
        return Array((received + signatures).utf8) + message
    }

    /// Every `From`, `Sender`, `Resent-From` and `Resent-Sender` mailbox of `message` is `sender` (any ASCII case), and
    /// there is a `From`.
    static func checkOriginators(_ message: [UInt8], sender: String) throws(OutboundPreparationError) {
        let originators: Originators
        do {
            originators = try Originators(message: message)
        } catch {
            throw .originators(error.description)
        }
        guard !originators.from.isEmpty else { throw .originators("The email has no From field.") }
        // Compared as addresses (``EmailAddress``): ASCII case only, so a look-alike such as KELVIN SIGN is another
        // sender, never folded onto the envelope's.
        let named = originators.from + originators.sender + originators.resentFrom + originators.resentSender
        guard named.allSatisfy({ EmailAddress.same($0.email, sender) }) else {
            throw .originators(
                "The From, Sender, Resent-From or Resent-Sender of the email is not its envelope sender.")
        }
    }

    /// One header field: its name and its whole text (continuation lines included, ending CRLF).
    struct HeaderField: Equatable {
        let name: String
        let text: String
    }

    /// The header fields and the body (what follows the first empty line; empty when there is none).
    static func split(_ message: [UInt8]) -> (fields: [HeaderField], body: [UInt8]) {
        var fields: [HeaderField] = []
        var index = 0
        var current: [UInt8] = []
        func flush() {
            guard !current.isEmpty else { return }
            let text = String(decoding: current, as: UTF8.self)
            let name = text.prefix { $0 != ":" }.trimmingSuffixSpaces()
            fields.append(HeaderField(name: name, text: text))
            current = []
        }
        while index < message.count {
            var end = index
            while end + 1 < message.count, !(message[end] == 13 && message[end + 1] == 10) { end += 1 }
            let lineEnd = min(end + 2, message.count)
            if end == index && end + 1 < message.count {
                // The empty line: the body follows.
                flush()
                return (fields, Array(message[lineEnd...]))
            }
            let first = message[index]
            if (first == 0x20 || first == 0x09) && !current.isEmpty {
                current += message[index..<lineEnd]
            } else {
                flush()
                current = Array(message[index..<lineEnd])
            }
            index = lineEnd
        }
        flush()
        return (fields, [])
    }

    /// Bare LF and bare CR become CRLF (what DKIM signs and SMTP sends).
    static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 40)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 13 {
                result += [13, 10]
                if index + 1 < bytes.count && bytes[index + 1] == 10 { index += 1 }
            } else if byte == 10 {
                result += [13, 10]
            } else {
                result.append(byte)
            }
            index += 1
        }
        return result
    }

    /// The queue id as a dot-atom part: letters, digits, `.`, `-` and `_` kept, anything else dropped.
    static func messageIDLocalPart(_ queueID: String) -> String {
        let kept = String(
            queueID.unicodeScalars.filter {
                $0.isASCII
                    && ($0.properties.isAlphabetic
                        || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0))
            })
        return kept.isEmpty ? "postern" : kept
    }
}

extension Substring {
    fileprivate func trimmingSuffixSpaces() -> String {
        var text = self
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

/// Why a message could not be made ready to leave.
public enum OutboundPreparationError: Error, Sendable, Equatable {
    /// The prepared header names someone other than the envelope sender in `From` or `Sender`, has no `From`, or
    /// cannot be read strictly: the message never leaves (a permanent failure).
    case originators(String)
    /// A DKIM signature could not be made (a passing failure: the attempt is deferred).
    case signing(CryptoError)
}
