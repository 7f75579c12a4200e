import Directory
import EmailAddresses
import MIME
import MailStore
import Storage

/// Delivers mail addressed to local mailboxes into the mail store, whatever brought it: SMTP (through its sink
/// adapter), JMAP submission and `postern mail deliver`. Each message is parsed once (``MIMEParser``) and stored
/// once per local recipient, in one transaction; the queue id it answers with is the first copy's id.
public struct LocalDelivery: Sendable {
    /// Which addresses are local, and their quotas.
    public let directory: any AccountDirectory
    /// Where copies go.
    public let store: MailStore
    let limits: MIMELimits
    let clock: @Sendable () -> Int64
    /// Subaddressing and the catch-all.
    public let policy: RecipientPolicy
    /// Whether each message's codes and links are found as it is stored (issue 85); off, they are found later by
    /// `postern mail extract --backfill`.
    let extracting: Bool

    /// - Parameters:
    ///   - directory: which addresses are local, and their quotas.
    ///   - store: where copies go.
    ///   - maximumMessageBytes: the largest message the MIME parser takes (SMTP's own limit); its other limits
    ///     are ``MIMELimits``' defaults.
    ///   - clock: Unix seconds, the copies' `received_at`.
    ///   - policy: subaddressing and the catch-all; the default refuses what is not local and splits no address.
    ///   - extracting: whether each message's codes and links are found as it is stored; default true.
    public init(
        directory: any AccountDirectory, store: MailStore,
        maximumMessageBytes: Int = MIMELimits.default.maximumMessageBytes,
        policy: RecipientPolicy = RecipientPolicy(), extracting: Bool = true,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.directory = directory
        self.store = store
        self.limits = MIMELimits(maximumMessageBytes: maximumMessageBytes)
        self.policy = policy
        self.extracting = extracting
        self.clock = clock
    }

    /// Local and existing (or a subaddress of one): accept; local domain without such a mailbox: unknown; any other
    /// domain: relay denied; with ``RecipientPolicy/catchAll`` every address is accepted. When the accounts cannot be
    /// read, a recipient on a local domain is accepted and the delivery fails with a temporary error instead of a
    /// permanent refusal.
    public func verdict(forRecipient address: String) async -> RecipientVerdict {
        if policy.catchAll != nil { return .accept }
        do {
            switch try await resolve(address) {
            case .local: return .accept
            case .unknown: return .unknownLocal
            case .foreign: return .relayDenied
            }
        } catch {
            return directory.serves(domain: Self.domain(of: address)) ? .accept : .relayDenied
        }
    }

    /// What `address` is here: the address itself when the directory knows it (an account literally named
    /// `alice+tag` wins), else its subaddress's base (`alice+tag@dom` as `alice@dom`, RFC 5233) when the policy has
    /// a delimiter and the base is local.
    /// - Throws: the directory's storage errors.
    public func resolve(_ address: String) async throws -> AddressResolution {
        let resolution = try await directory.resolve(address)
        guard case .local = resolution else {
            if let base = policy.base(of: address), case .local(let recipient) = try await directory.resolve(base) {
                return .local(recipient)
            }
            return resolution
        }
        return resolution
    }

    /// Parses `data` and stores a copy for every local recipient of `envelope` (one per mailbox, however many of
    /// its subaddresses were named), and with a catch-all one copy there for the others. Each copy keeps the
    /// envelope recipients that led to it (`envelope_to`) and the holder the directory named, so that the store's
    /// transaction queues what hangs off the delivery (webhook events) with the message.
    /// - Throws: ``LocalDeliveryError`` when no recipient is local any more, a MIME limit is passed or a quota
    ///   is full; storage errors as they are. Nothing is stored when it throws.
    public func store(_ envelope: MailEnvelope, data: [UInt8]) async throws -> String {
        var recipients: [MailStore.Recipient] = []
        func add(_ recipient: Directory.Recipient, for original: String) {
            let original = EmailAddress.key(original)
            if let index = recipients.firstIndex(where: { $0.address == recipient.address }) {
                recipients[index].envelopeTo.append(original)
            } else {
                var copy = MailStore.Recipient(recipient)
                copy.envelopeTo = [original]
                recipients.append(copy)
            }
        }
        for address in envelope.recipients {
            if case .local(let recipient) = try await resolve(address) {
                add(recipient, for: address)
            } else if let catchAll = policy.catchAll {
                add(catchAll, for: address)
            }
        }
        guard !recipients.isEmpty else { throw LocalDeliveryError.noLocalRecipient }
        let message = try self.message(data, envelopeFrom: envelope.mailFrom)
        do {
            let ids = try await store.deliver(message, to: recipients, folder: .inbox, now: clock())
            return ids[0]
        } catch let error as MailStoreError {
            throw LocalDeliveryError.stored(error)
        }
    }

    /// Stores a copy of `message` for each of `recipients` on `connection`, inside the caller's transaction (a
    /// submission's, which records it with them), so that a full mailbox refuses only its own copy. Returns, in the
    /// order of `recipients`, whether each copy was stored (false: its quota is full).
    /// - Warning: nothing is announced: once the caller's transaction commits, call ``MailChanges/announce(_:)`` on
    ///   the store's ``MailStore/changes`` with the recipients' addresses.
    /// - Throws: storage errors as they are (the caller's transaction then keeps nothing).
    public func deliverEach(_ message: NewMailMessage, to recipients: [Recipient], now: Int64, on connection: any SQLConnection)
        throws -> [Bool]
    {
        try recipients.map { recipient in
            do {
                _ = try store.deliver(
                    message, to: MailStore.Recipient(recipient), folder: .inbox, now: now, on: connection)
                return true
            } catch MailStoreError.quotaExceeded {
                return false
            }
        }
    }

    /// `data` parsed once under this delivery's MIME limits, as the store keeps it (with its codes and links when
    /// ``extracting``): the one parse of a message every copy of it is stored from.
    /// - Throws: ``LocalDeliveryError/unreadable(_:)`` when a MIME limit is passed.
    public func message(_ data: [UInt8], envelopeFrom: String) throws(LocalDeliveryError) -> NewMailMessage {
        do {
            return NewMailMessage(
                try MIMEParser.parse(data, limits: limits), envelopeFrom: envelopeFrom, raw: data, extracting: extracting)
        } catch {
            throw .unreadable(error)
        }
    }

    private static func domain(of address: String) -> String {
        address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }
}

extension MailStore.Recipient {
    /// The store's view of a directory recipient, its holder included (what the store's arrivals observer hears).
    init(_ recipient: Directory.Recipient) {
        self.init(
            address: recipient.address, quota: recipient.quota,
            holder: recipient.holderID.map { MailHolder(ownerID: $0, accountID: recipient.accountID) })
    }
}
