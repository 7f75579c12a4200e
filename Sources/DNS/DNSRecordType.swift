/// The record types Postern asks for (RFC 1035 section 3.2.2).
public enum DNSRecordType: UInt16, Sendable {
    case a = 1
    case aaaa = 28
    case mx = 15
    case txt = 16
}
