import HTTP1
import JSON
import MIME
import MailStore

/// The application routes (`server/apiv1/application.go`, `chaos.go`, `other.go`) and the operations that need what
/// Postern does not ship, answered as Mailpit answers with the feature off.
extension MailpitAPI {
    /// `GET /api/v1/info`: `AppInformation` of the caller's scope: the counts and tags; Postern keeps no Mailpit
    /// runtime counters or database file, so those are 0 or empty.
    func info(_ call: MailpitCall) async throws -> HTTPResponse {
        let counts = try await mail.counts(in: call.scope, matching: .all([]))
        let tags = try await tagCounts(call.scope).sorted { $0.key < $1.key }.map {
            ($0.key, JSONValue.int(Int64($0.value)))
        }
        return Self.json(
            .object([
                ("Version", .string(configuration.version)), ("LatestVersion", .string("")),
                ("Database", .string("")), ("DatabaseSize", .int(0)), ("Messages", .int(Int64(counts.total))),
                ("Unread", .int(Int64(counts.unread))), ("Tags", .object(tags)),
                (
                    "RuntimeStats",
                    .object([
                        ("Uptime", .int(max(0, clock() - startedAt))), ("Memory", .int(0)),
                        ("MessagesDeleted", .int(0)), ("SMTPAccepted", .int(0)), ("SMTPAcceptedSize", .int(0)),
                        ("SMTPRejected", .int(0)), ("SMTPIgnored", .int(0)),
                    ])
                ),
            ]))
    }

    /// `GET /api/v1/webui`: `WebUIConfiguration`: the relay on for the operator when outbound delivery is, no
    /// SpamAssassin, chaos as `POSTERN_SMTP_CHAOS` has it, nothing hidden.
    func webUI(_ call: MailpitCall) async throws -> HTTPResponse {
        Self.json(
            .object([
                ("Label", .string("")),
                (
                    "MessageRelay",
                    .object([
                        ("Enabled", .bool(relay != nil && call.viewer == .operator)), ("SMTPServer", .string("")),
                        ("ReturnPath", .string("")),
                        ("AllowedRecipients", .string("")), ("BlockedRecipients", .string("")),
                        ("OverrideFrom", .string("")), ("PreserveMessageIDs", .bool(relay != nil)),
                    ])
                ),
                ("SpamAssassin", .bool(false)), ("ChaosEnabled", .bool(chaos != nil)),
                ("DuplicatesIgnored", .bool(false)), ("HideDeleteAllButton", .bool(false)),
            ]))
    }

    /// `GET /api/v1/chaos`: `ChaosTriggers` of the caller's rules (the server's for the operator, their sandbox's for
    /// a Pro user); with failure injection off, Mailpit's `400 Chaos is not enabled`.
    func getChaos(_ call: MailpitCall) async throws -> HTTPResponse {
        guard let chaos else { throw MailpitRefusal.badRequest("Chaos is not enabled") }
        return Self.json(MailpitChaosJSON.render(chaos.triggers(for: call.viewer.chaosScope)))
    }

    /// `PUT /api/v1/chaos`: replaces the caller's rules with the triggers of the body (``MailpitChaosJSON/parse(_:)``)
    /// and answers them as `GET` does; 400 as Mailpit for a body it refuses or with failure injection off.
    func setChaos(_ call: MailpitCall) async throws -> HTTPResponse {
        guard let chaos else { throw MailpitRefusal.badRequest("Chaos is not enabled") }
        let triggers = try MailpitChaosJSON.parse(try MailpitBody(call.request))
        chaos.set(triggers, for: call.viewer.chaosScope)
        return Self.json(MailpitChaosJSON.render(chaos.triggers(for: call.viewer.chaosScope)))
    }

    /// `GET /api/v1/message/{ID}/html-check` and `/sa-check`: Mailpit without the feature (the HTML check's
    /// caniemail data set, a SpamAssassin `spamd`) has no such route: `404 page not found`.
    func featureOff(_ call: MailpitCall) async throws -> HTTPResponse {
        throw MailpitRefusal.notFound
    }

    /// `POST /api/v1/message/{ID}/release` (`{"To": [...]}`): the operator's stored message sent on through the
    /// outbound queue (``MailpitRelay``) from its own `From`, to each address of `To`, as a submission of that sender
    /// (the queue removes `Bcc`, adds `Date` and `Message-ID` when absent and signs it): only a message its sender
    /// wrote in its own mailbox here; a received one is refused, whatever its `From` says (issue 81 item 7). 404 for a
    /// message the scope does not hold; 400 `SMTP relay is not enabled` with outbound delivery off or for a Pro user's
    /// sandbox (its captures are not sent anywhere); 400 in Mailpit's words for an address it cannot read, no address,
    /// a message whose `From` is not one mailbox (or whose `Sender` is another), and what the checks of a submission
    /// refuse.
    func release(_ call: MailpitCall) async throws -> HTTPResponse {
        let raw = try await rawMessage(call)
        guard let relay, call.viewer == .operator else {
            throw MailpitRefusal.badRequest("SMTP relay is not enabled")
        }
        let given = try MailpitBody(call.request).strings("To")
        var recipients: [String] = []
        for text in given {
            guard let address = try? AddressListParser.mailbox(text) else {
                throw MailpitRefusal.badRequest("Invalid email address: " + text)
            }
            recipients.append(address.email)
        }
        guard !recipients.isEmpty else { throw MailpitRefusal.badRequest("No valid addresses found") }
        guard let originators = try? Originators(message: raw), let from = originators.from.first else {
            throw MailpitRefusal.badRequest("No From header found")
        }
        let sender = originators.sender.first?.email ?? from.email
        let same = { (a: String, b: String) in a.lowercased() == b.lowercased() }
        guard originators.from.count == 1, originators.sender.allSatisfy({ same($0.email, from.email) }) else {
            throw MailpitRefusal.badRequest("Failed: the message's From and Sender must be one mailbox, its sender")
        }
        do {
            _ = try await relay.release(raw, messageID: try await messageID(call), from: sender, to: recipients)
        } catch let refusal as MailpitReleaseRefusal {
            switch refusal {
            case .senderNotLocal(let address):
                throw MailpitRefusal.badRequest("Failed: \(address) is no mailbox of this server")
            case .notWrittenBySender(let id):
                throw MailpitRefusal.badRequest(
                    "Failed: message \(id) was received by this server, not written by its sender here: it is never "
                        + "sent on as its sender's mail; forward it in a new message")
            case .held(let address, let why):
                throw MailpitRefusal.badRequest("Failed: \(address) may not send to other domains now: \(why)")
            case .refused(let why):
                throw MailpitRefusal.badRequest("Failed: " + why)
            }
        }
        return Self.ok()
    }
}
