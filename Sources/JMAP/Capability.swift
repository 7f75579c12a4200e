/// The capabilities this server has (RFC 8620, 8621, 9404, 8887, and Postern's extraction).
enum Capability {
    static let core = "urn:ietf:params:jmap:core"
    static let mail = "urn:ietf:params:jmap:mail"
    static let submission = "urn:ietf:params:jmap:submission"
    static let blob = "urn:ietf:params:jmap:blob"
    static let webSocket = "urn:ietf:params:jmap:websocket"
    /// Postern's own: the codes and links found in each message, as `Email/get` properties (issue 85).
    static let extract = "urn:postern:jmap:extract"
    static let all: Set<String> = [core, mail, submission, blob, webSocket, extract]
}
