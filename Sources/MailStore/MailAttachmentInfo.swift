/// An attachment's description, without its bytes.
public struct MailAttachmentInfo: Sendable, Equatable {
    /// Zero-based, in the order of the message.
    public var position: Int
    public var filename: String?
    public var contentType: String
    public var contentID: String?
    public var disposition: String?
    public var size: Int64

    /// Whether the part is shown in the body rather than offered to download: `Content-Disposition: inline`, or a
    /// `Content-ID` without a disposition (the rule `MailFilter`'s `hasInlinePart` and `hasDownloadPart` apply in SQL).
    /// Delivery records `inline` for a part RFC 8621 4.1.4 shows in the body and does not list as an attachment (MIME's
    /// `MailAttachment.disposition`), so this is the RFC's answer for mail stored since issue 87; older mail keeps what
    /// it was filed with.
    public var isShownInline: Bool {
        disposition == "inline" || (disposition == nil && contentID != nil)
    }
}
