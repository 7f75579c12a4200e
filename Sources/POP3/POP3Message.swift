/// One message of a POP3 maildrop as the session lists it: its unique id (UIDL's, RFC 1939 §7: 1 to 70 characters
/// 0x21–0x7E, stable across sessions) and its size in octets as RETR sends it.
public struct POP3Message: Sendable, Equatable {
    public var uid: String
    public var size: Int

    public init(uid: String, size: Int) {
        self.uid = uid
        self.size = size
    }
}
