/// RFC 2047 encoded words in header text: `=?charset?B?...?=` and `=?charset?Q?...?=`, with the whitespace between
/// two adjacent encoded words dropped (RFC 2047 6.2). Anything malformed stays as written.
public enum EncodedWords {
    /// `text` with each encoded word replaced by the text it encodes (in a charset ``Charsets`` reads).
    public static func decode(_ text: String) -> String {
        guard text.contains("=?") else { return text }
        var output = ""
        var rest = Substring(text)
        var pendingSpace: Substring = ""
        var lastWasEncoded = false
        while !rest.isEmpty {
            if rest.hasPrefix("=?"), let (decoded, after) = word(rest) {
                if !lastWasEncoded { output += pendingSpace }
                pendingSpace = ""
                output += decoded
                lastWasEncoded = true
                rest = after
                continue
            }
            let character = rest.removeFirst()
            if character == " " || character == "\t" {
                pendingSpace.append(character)
                continue
            }
            output += pendingSpace
            pendingSpace = ""
            output.append(character)
            lastWasEncoded = false
        }
        return output + pendingSpace
    }

    /// One encoded word at the start of `text` and what follows it.
    private static func word(_ text: Substring) -> (String, Substring)? {
        let body = text.dropFirst(2)
        let parts = body.split(separator: "?", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].count == 1, let end = parts[2].range(of: "?=") else {
            return nil
        }
        let payload = parts[2][..<end.lowerBound]
        guard !payload.contains(" ") else { return nil }
        let charset = parts[0].split(separator: "*").first.map(String.init)  // RFC 2231 language suffix
        let bytes: [UInt8]
        switch parts[1].lowercased() {
        case "b": bytes = TransferEncodings.base64(Array(payload.utf8))
        case "q": bytes = TransferEncodings.quotedPrintable(Array(payload.utf8), underscoreIsSpace: true)
        default: return nil
        }
        return (Charsets.decode(bytes, charset: charset), parts[2][end.upperBound...])
    }
}
