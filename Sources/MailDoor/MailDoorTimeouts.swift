/// The timeouts the mail doors' sessions share (issue 81 item 11), so that no door keeps a silent stranger longer than
/// another: IMAP's (`IMAPLimits`) and POP3's (`POP3Limits`) defaults are these.
public enum MailDoorTimeouts {
    /// How long a connection that has not signed in may stay silent before it is closed: 60 s. A mail client sends its
    /// credentials at once; only a connection nobody uses waits longer. (SMTP, whose every client is a stranger, keeps
    /// RFC 5321's 5 minutes for each command: `SMTPServerConfiguration.commandTimeout`.)
    public static let unauthenticated: Duration = .seconds(60)

    /// `duration` in whole nanoseconds, the sessions' clock; 0 for a negative one.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
