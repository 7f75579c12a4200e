/// What a link is for, read from its visible text, its path and query, and the words around it.
public enum LinkKind: String, Sendable, Codable, CaseIterable {
    /// Verifies or confirms an address or an account (`Verify email`, `/confirm?token=`).
    case verify
    /// Signs in at once: a magic link (`Sign in to Acme`, `/magic?token=`).
    case signIn
    /// Resets a password (`Reset password`, `/reset?token=`).
    case reset
    /// Unsubscribes from a list (`Unsubscribe`, `/unsubscribe`, the `List-Unsubscribe` header).
    case unsubscribe
    /// Anything else.
    case other
}

/// A web link of a message, with its visible text and its kind.
public struct ExtractedLink: Sendable, Equatable, Codable {
    /// The URL as sent (`http` or `https`; tracking redirects are kept, nothing is fetched), references decoded.
    public var url: String
    /// The link's visible text (an image's `alt` when it has no text), white space collapsed; empty for a bare URL.
    public var text: String
    public var kind: LinkKind

    public init(url: String, text: String, kind: LinkKind) {
        self.url = url
        self.text = text
        self.kind = kind
    }
}
