import IMAP
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
    let holder: IMAPMailboxHolder
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

    /// A FETCH of `attributes` for the messages at `indexes` of `entries`, with the first batch already read.
    init(
        attributes: [IMAPFetchAttribute], uid: Bool, holder: IMAPMailboxHolder, indexes: [Int], of entries: [MailUIDEntry],
        batch: [String: [UInt8]], batchEnd: Int, kept: [String: IMAPEnvelope], needsBytes: Bool,
        onlyEnvelopeNeedsBytes: Bool, marksSeen: Bool
    ) {
        self.attributes = attributes
        self.uid = uid
        self.holder = holder
        self.indexes = indexes
        self.batch = batch
        self.batchEnd = batchEnd
        self.kept = kept
        self.needsBytes = needsBytes
        self.onlyEnvelopeNeedsBytes = onlyEnvelopeNeedsBytes
        self.marksSeen = marksSeen
        reads = []
        reads = indexes.filter { readsBytes(entries[$0].id) }
    }

    var isFinished: Bool { position >= indexes.count }

    /// Whether `id`'s bytes are read for this FETCH (not when only an envelope the listener kept needs them).
    func readsBytes(_ id: String) -> Bool { needsBytes && !(onlyEnvelopeNeedsBytes && kept[id] != nil) }
}
