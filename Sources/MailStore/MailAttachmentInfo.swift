/// An attachment's description, without its bytes.
public struct MailAttachmentInfo: Sendable, Equatable {
    /// Zero-based, in the order of the message.
    public var position: Int
    public var filename: String?
    public var contentType: String
    public var contentID: String?
    public var disposition: String?
    public var size: Int64
}
