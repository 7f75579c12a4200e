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
    /// The envelopes kept by the listener for these messages, by position in `indexes` (empty when none is asked).
    let kept: [IMAPEnvelope?]
    let needsBytes: Bool
    let onlyEnvelopeNeedsBytes: Bool
    let marksSeen: Bool

    /// A FETCH of `attributes` for the messages at `indexes` of `entries`, with the first batch already read when
    /// `first` is given (the bytes, and how many of the messages read they cover), on a mailbox `readOnly` or not.
    init(
        attributes: [IMAPFetchAttribute], uid: Bool, holder: MailboxHolder, indexes: [Int],
        first: (raws: [String: [UInt8]], count: Int)?, kept: [IMAPEnvelope?], readOnly: Bool
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
        reads = indexes.indices.filter(readsBytes(at:)).map { indexes[$0] }
    }

    var isFinished: Bool { position >= indexes.count }

    /// Whether the bytes of the message at `position` of `indexes` are read for this FETCH (not when only an envelope
    /// the listener kept needs them).
    func readsBytes(at position: Int) -> Bool {
        needsBytes && !(onlyEnvelopeNeedsBytes && position < kept.count && kept[position] != nil)
    }

    /// Whether the next message's bytes are read and the batch read ahead is spent: the next batch is read first.
    var needsBatch: Bool { !isFinished && readsBytes(at: position) && readCount >= batchEnd }

    /// Answers the next message into `part` from the batch read ahead (``needsBatch`` false): its items in the
    /// order asked, `\Seen` set in `view` and kept for the store when the FETCH marks it. A message gone from the store
    /// since the view was looked at is passed over.
    mutating func answerNext(view: inout IMAPMailboxView, into part: inout IMAPFetchPart) {
        let index = indexes[position]
        let envelope = position < kept.count ? kept[position] : nil
        let readsBytes = readsBytes(at: position)
        position += 1
        part.answered += 1
        let entry = view.entries[index]
        var renderer: IMAPMessageRenderer?
        if readsBytes {
            readCount += 1
            guard let raw = batch[entry.id] else { return }
            part.rendered += raw.count
            renderer = IMAPMessageRenderer(raw: raw, for: attributes)
        }
        var keywords = entry.keywords
        if marksSeen && !keywords.contains("$seen") {
            keywords.insert("$seen")
            part.seenUpdates.append((entry.id, keywords))
            view.setKeywords(keywords, at: index)
        }
        var items: [IMAPFetchItem] = []
        if uid { items.append(.uid(entry.uid)) }
        for attribute in attributes {
            switch attribute {
            case .uid: if !uid { items.append(.uid(entry.uid)) }
            case .flags: items.append(.flags(view.flags(keywords, uid: entry.uid)))
            case .rfc822Size: items.append(.rfc822Size(UInt64(entry.size)))
            case .internalDate: items.append(.internalDate(IMAPDateTime(seconds: entry.receivedAt)))
            case .envelope:
                if let envelope {
                    items.append(.envelope(envelope))
                } else if case .envelope(let envelope)? = renderer?.item(attribute) {
                    items.append(.envelope(envelope))
                    part.parsed[entry.id] = envelope
                }
            default: if let item = renderer?.item(attribute) { items.append(item) }
            }
        }
        if keywords != entry.keywords && !attributes.contains(.flags) {
            items.append(.flags(view.flags(keywords, uid: entry.uid)))
        }
        part.responses.append(.fetch(UInt32(index + 1), items))
    }
}

/// One part of a FETCH's answer as ``IMAPFetchCursor/answerNext(view:into:)`` makes it: its responses, the envelopes
/// parsed for the listener's cache, the `\Seen` flags to write, and how much it holds against the part's bounds.
struct IMAPFetchPart {
    var responses: [IMAPUntaggedResponse] = []
    var parsed: [String: IMAPEnvelope] = [:]
    var seenUpdates: [(id: String, keywords: Set<String>)] = []
    /// Bytes of message text rendered, and messages answered.
    var rendered = 0
    var answered = 0

    /// Whether the part reached a bound (``IMAPFetchCursor/partBytes``, ``IMAPFetchCursor/partMessages``).
    var isFull: Bool { rendered >= IMAPFetchCursor.partBytes || answered >= IMAPFetchCursor.partMessages }
}
