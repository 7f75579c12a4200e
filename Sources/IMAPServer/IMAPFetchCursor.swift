import IMAP
import MailDoorServer
import MailStore

/// Where a FETCH answered in parts stands between two of them (``IMAPCommandResult/continues``): the messages it
/// names, how far it has answered, and the batch of bytes read ahead. A FETCH of a whole mailbox so holds one part's
/// answer and one read-ahead batch at a time, never every message: the connection asks for the next part
/// (``IMAPRequest/continueCommand``) only once the client has read the last one down to the output's bound.
struct IMAPFetchCursor: Sendable {
    /// The most bytes of message text one part renders (a part ends after the message that passes it).
    static let partBytes = 1 << 20
    /// The most messages one part answers when no text is asked for (flags, UIDs, sizes).
    static let partMessages = 4096

    let attributes: [IMAPFetchAttribute]
    let uid: Bool
    let holder: MailboxHolder
    /// The view's indexes of the messages named, in order.
    let indexes: [Int]
    /// How many of `indexes` are answered.
    var position = 0
    /// The indexes whose bytes are read, in order, and how many of them came before `position`.
    private(set) var reads: [Int]
    var readCount = 0
    /// The bytes read ahead, and the position in `reads` they reach.
    var batch: [String: [UInt8]]
    var batchEnd: Int
    /// The envelopes kept by the listener for these messages.
    let kept: [String: IMAPEnvelope]
    let needsBytes: Bool
    let onlyEnvelopeNeedsBytes: Bool
    let marksSeen: Bool

    /// A FETCH of `attributes` for the messages at `indexes` of `entries`, with the first batch already read when
    /// `first` is given (the bytes, and how many of the messages read they cover), on a mailbox `readOnly` or not.
    init(
        attributes: [IMAPFetchAttribute], uid: Bool, holder: MailboxHolder, indexes: [Int], of entries: [MailUIDEntry],
        first: (raws: [String: [UInt8]], count: Int)?, kept: [String: IMAPEnvelope], readOnly: Bool
    ) {
        self.attributes = attributes
        self.uid = uid
        self.holder = holder
        self.indexes = indexes
        batch = first?.raws ?? [:]
        batchEnd = first?.count ?? 0
        self.kept = kept
        needsBytes = IMAPMessageRenderer.needsBytes(attributes)
        // A kept envelope spares reading the message's bytes when nothing else asked needs them.
        onlyEnvelopeNeedsBytes =
            attributes.contains(.envelope) && !IMAPMessageRenderer.needsBytes(attributes.filter { $0 != .envelope })
        marksSeen = !readOnly && IMAPMessageRenderer.setsSeen(attributes)
        reads = []
        reads = indexes.filter { readsBytes(entries[$0].id) }
    }

    var isFinished: Bool { position >= indexes.count }

    /// Whether `id`'s bytes are read for this FETCH (not when only an envelope the listener kept needs them).
    func readsBytes(_ id: String) -> Bool { needsBytes && !(onlyEnvelopeNeedsBytes && kept[id] != nil) }
}
