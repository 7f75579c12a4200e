import Foundation
import HTTP1

/// The one rule for an HTTP answer that carries bytes this server received (issue 81 item 6): a message's raw source,
/// a part or attachment of it, a blob. Whoever wrote them (any outsider who can send mail here) must not get a page
/// of this origin out of them, where a script would run with the reader's credential; so every door that hands them
/// out (Mailpit's raw and parts, Mail.td's, mail.tm's and mail.cx's sources and attachments, the Pro sandbox's, the
/// operator API's, JMAP's blob download, the web inbox's) builds its answer here:
///
/// 1. `Content-Type` is the sender's media type when it reads as one (`type/subtype`, parameters), else
///    `application/octet-stream`; a door keeps its documented type (Mail.td's `message/rfc822`).
/// 2. `Content-Disposition` is `attachment`, but `inline` for a raster image asked for
///    ``Presentation/inline(filename:)`` (``rasterImageTypes``: never SVG, an image that runs script) and for a source
///    shown as text (``Presentation/sourceText``, always `text/plain; charset=utf-8`).
/// 3. `X-Content-Type-Options: nosniff`: the type is not guessed from the bytes.
/// 4. `Content-Security-Policy: default-src 'none'; sandbox` (``ContentSecurityPolicy/sandbox``): should a browser
///    render them anyway, they run nothing, load nothing and have no origin.
/// 5. `Referrer-Policy: no-referrer` and `Cache-Control: no-store` (a door may set its own caching after).
///
/// `scripts/check-imports` keeps `Content-Disposition` out of every other source file, so no door writes its own.
public enum ReceivedBytes {
    /// How a door would have the bytes shown.
    public enum Presentation: Sendable, Equatable {
        /// To save: `attachment`, whatever the type; `filename` when given.
        case attachment(filename: String?)
        /// To look at where that is safe (Mailpit's part route): `inline` for a raster image, else `attachment`.
        case inline(filename: String?)
        /// A raw message shown as text (Mailpit's `raw`, the web inbox's source): `text/plain; charset=utf-8`,
        /// `inline`, whatever type the door names.
        case sourceText
    }

    /// The image types shown `inline`: raster formats a browser decodes without running anything. SVG is not one.
    public static let rasterImageTypes: Set<String> = [
        "image/png", "image/gif", "image/jpeg", "image/webp", "image/bmp", "image/avif",
    ]

    /// The answer of a door that hands out received bytes.
    /// - Parameters:
    ///   - body: the bytes, as received (or decoded from their transfer encoding).
    ///   - contentType: the media type the door names (the sender's for a part); ignored for
    ///     ``Presentation/sourceText``.
    ///   - presentation: how the door would have them shown; the rule above decides what it gets.
    public static func response(_ body: [UInt8], contentType: String, _ presentation: Presentation) -> HTTPResponse {
        let type: String
        let disposition: String
        switch presentation {
        case .sourceText:
            type = "text/plain; charset=utf-8"
            disposition = "inline"
        case .attachment(let filename):
            type = mediaType(contentType)
            disposition = "attachment" + parameter(filename)
        case .inline(let filename):
            type = mediaType(contentType)
            disposition = (isRasterImage(type) ? "inline" : "attachment") + parameter(filename)
        }
        var response = HTTPResponse(status: .ok, body: body)
        response.headers.replaceOrAdd("Content-Type", type)
        response.headers.replaceOrAdd("Content-Disposition", disposition)
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.setPolicy(.sandbox)
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    /// Whether media type `type` (parameters allowed, any case) is one of ``rasterImageTypes``.
    public static func isRasterImage(_ type: String) -> Bool {
        rasterImageTypes.contains(essence(type))
    }

    /// `type/subtype`, lower-cased, without parameters or white space.
    static func essence(_ type: String) -> String {
        String(type.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// `text` when it reads as a media type (a token `/` a token, then parameters of visible ASCII), else
    /// `application/octet-stream`: a sender's type never carries a control character or a line break into a header.
    static func mediaType(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let halves = essence(trimmed).split(separator: "/", omittingEmptySubsequences: false)
        let separators = "()<>@,;:\\\"/[]?={}".unicodeScalars
        let token = { (part: Substring) in
            !part.isEmpty
                && part.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !separators.contains($0) }
        }
        guard halves.count == 2, token(halves[0]), token(halves[1]),
            trimmed.unicodeScalars.allSatisfy({ ($0.value >= 0x20 && $0.value < 0x7F) || $0 == "\t" })
        else { return "application/octet-stream" }
        return trimmed
    }

    /// `; filename="..."` (printable ASCII, `"`, `\` and `/` as `_`, at most 100 characters), with
    /// `; filename*=UTF-8''...` (RFC 6266) too when the name holds anything else; empty for no name.
    static func parameter(_ filename: String?) -> String {
        guard let filename, !filename.isEmpty else { return "" }
        let scalars = filename.unicodeScalars.prefix(100)
        let plain = scalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        let quoted = String(
            String.UnicodeScalarView(
                scalars.map { $0.value >= 0x20 && $0.value < 0x7F && !"\"\\/".unicodeScalars.contains($0) ? $0 : "_" }))
        guard !plain else { return "; filename=\"\(quoted)\"" }
        var encoded = ""
        for byte in String(String.UnicodeScalarView(scalars.filter { $0.value >= 0x20 && $0.value != 0x7F })).utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~".utf8.contains(byte)
            encoded += unreserved ? String(UnicodeScalar(byte)) : "%" + hexDigits(byte)
        }
        return "; filename=\"\(quoted)\"; filename*=UTF-8''\(encoded)"
    }

    /// `byte` as two upper-case hex digits (RFC 3986's percent-encoding).
    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
