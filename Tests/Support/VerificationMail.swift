/// A verification mail as services send them (issue 85): HTML only, a CSS colour in its style sheet that a naive
/// pattern takes for the code, the code set large and bold under its words, a verify link and an unsubscribe link.
/// The doors' tests deliver it and read its code and links back.
public enum VerificationMail {
    /// The code the mail carries.
    public static let code = "482913"
    /// Its verify link.
    public static let verifyURL = "https://acme.example/verify?token=Zq81xkP4w7Lm2sQ9"

    /// The message to `recipient`, CRLF line ends, ready for SMTP's `DATA` or the store's parser.
    public static func raw(to recipient: String, subject: String = "Confirm your Acme account") -> String {
        [
            "From: Acme <no-reply@acme.example>", "To: \(recipient)", "Subject: \(subject)",
            "Message-ID: <verify-\(recipient)@acme.example>", "MIME-Version: 1.0",
            "Content-Type: text/html; charset=utf-8", "",
            "<html><head><style>.brand{color:#202123}</style></head><body>",
            "<p class=\"brand\">Welcome to Acme.</p><p>Your verification code is:</p>",
            "<p style=\"font-size:32px\"><b>\(code)</b></p>",
            "<p><a href=\"\(verifyURL)\">Verify email</a></p>",
            "<p><a href=\"https://acme.example/unsubscribe?u=7\">Unsubscribe</a></p></body></html>", "",
        ].joined(separator: "\r\n")
    }

    /// A newsletter with numbers and no code, for what must not match.
    public static func newsletter(to recipient: String) -> String {
        [
            "From: Acme News <news@acme.example>", "To: \(recipient)", "Subject: Acme in October",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "",
            "Our 2024 report is out: 1200 new customers, orders up 35%.", "Read it at https://acme.example/report",
            "",
        ].joined(separator: "\r\n")
    }
}
