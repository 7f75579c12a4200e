import HTTP1
import JSON
import MailStore
import ServerKit
import WebSocket

/// `GET /api/events` (`server/websockets`): a WebSocket of Mailpit's events for the mail the credential sees, fed by
/// the store's one change stream, so a change made through any door (SMTP, JMAP, IMAP, the web inbox, the operator
/// API, this API) is told: `{"Type": "new", "Data": MessageSummary}` for each message that arrives (in arrival order),
/// `{"Type": "update", "Data": {"ID", "Read"}}` when its read status moves and `{"ID", "Tags"}` when its tags do,
/// `{"Type": "delete", "Data": {"ID"}}` for each message removed, `{"Type": "truncate", "Data": null}` when every
/// message went at once, `{"Type": "prune", "Data": null}` for retention's pass (``MailChanges/pruned``, as Mailpit's
/// own pruning says it, however few went) and when more than 200 went at once otherwise (a search delete), and after
/// any of them `{"Type": "stats", "Data": {"Total", "Unread", "Version"}}`.
///
/// The credential is the API's (Bearer or Basic's password), checked before the upgrade: a refusal is Mailpit's 401.
/// What the client sends is read and dropped. Past ``MailpitConfiguration/maximumEventMessages`` in the scope, only
/// `stats` is sent (what changed would take a read of every message at each change).
extension MailpitAPI {
    /// Adds the events socket under the base path.
    func registerEvents(on router: inout ContextRouter, base: String) {
        router.add(
            .GET, base + "/api/events",
            .webSocket { [self] request, _, _, _ in
                .later {
                    let viewer: MailpitViewer?
                    do {
                        viewer = try await self.viewer(of: request)
                    } catch {
                        return .refuse(Self.text(.serviceUnavailable, "Service unavailable"))
                    }
                    guard let viewer else { return .refuse(Self.unauthorized()) }
                    return .accept(subprotocol: nil) { inbound, outbound in
                        try await inbound.discarding { await self.pushEvents(viewer, outbound) }
                    }
                }
            })
    }

    /// Sends events until the socket closes (its task is cancelled then). Each look of the change stream reads
    /// everything it tells before it sends anything, so that a look a failover interrupts is run again whole (the
    /// stream's ``MailChangeStream/firstLook(_:)``) and the socket goes on, having sent nothing twice.
    private func pushEvents(_ viewer: MailpitViewer, _ outbound: WebSocketOutbound) async {
        let scope = viewer.scope
        let address: String? = if case .sandbox(let sandbox) = viewer { sandbox.address } else { nil }
        var known: [String: MailSummary]?
        do {
            let _: Bool? = try await mail.changeStream(of: address).firstLook { _ in
                let now = try await marks(scope)
                guard let before = known else {
                    known = now
                    return nil
                }
                let events = try await events(from: before, to: now, in: scope)
                known = now
                for (type, data) in events {
                    let event = JSONValue.object([("Type", .string(type)), ("Data", data)])
                    outbound.send(.text(String(decoding: event.serialize(), as: UTF8.self)))
                }
                return nil
            }
        } catch {
            if !Task.isCancelled { outbound.close(.internalError, reason: "") }
        }
    }

    /// Mailpit's events for what changed in `scope` from `known` to `now` (each message's summary with its read status
    /// and keywords), `stats` after any; reads the messages that arrived and the totals.
    private func events(from known: [String: MailSummary], to now: [String: MailSummary], in scope: MailScope)
        async throws -> [(String, JSONValue)]
    {
        guard now.count <= configuration.maximumEventMessages, known.count <= configuration.maximumEventMessages else {
            return [try await stats(scope)]
        }
        var events: [(String, JSONValue)] = []
        let gone = known.keys.filter { now[$0] == nil }
        let arrived = Set(now.keys.filter { known[$0] == nil })
        // Retention's pass is Mailpit's `prune`, whatever its size; what else went is told as below.
        let pruned = Set(gone.filter(mail.changes.pruned.contains))
        if !pruned.isEmpty { events.append(("prune", .null)) }
        let deleted = gone.filter { !pruned.contains($0) }
        if !deleted.isEmpty {
            if now.isEmpty && deleted.count > 1 && pruned.isEmpty {
                events.append(("truncate", .null))
            } else if deleted.count > 200 {
                events.append(("prune", .null))
            } else {
                events += deleted.sorted().map { ("delete", .object([("ID", .string($0))])) }
            }
        }
        for (id, marks) in now where arrived.contains(id) == false {
            guard let before = known[id] else { continue }
            if before.isRead != marks.isRead {
                events.append(("update", .object([("ID", .string(id)), ("Read", .bool(marks.isRead))])))
            }
            let tags = marks.keywords.compactMap(MailTag.tag).sorted()
            if before.keywords.compactMap(MailTag.tag).sorted() != tags {
                events.append(("update", .object([("ID", .string(id)), ("Tags", .array(tags.map(JSONValue.string)))])))
            }
        }
        if !arrived.isEmpty {
            let records = try await mail.listRecords(MailSelection(scope, .ids(Array(arrived))))
            events += records.reversed().map { ("new", MailpitJSON.summary($0)) }
        }
        return events.isEmpty ? [] : events + [try await stats(scope)]
    }

    /// Each message of `scope` (the newest, one past the configured maximum) with its read status and keywords.
    private func marks(_ scope: MailScope) async throws -> [String: MailSummary] {
        let newest = try await mail.list(MailSelection(scope, limit: configuration.maximumEventMessages + 1))
        return Dictionary(newest.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Mailpit's `stats` event: the scope's totals and the version.
    private func stats(_ scope: MailScope) async throws -> (String, JSONValue) {
        let counts = try await mail.counts(in: scope, matching: .all([]))
        return (
            "stats",
            .object([
                ("Total", .int(Int64(counts.total))), ("Unread", .int(Int64(counts.unread))),
                ("Version", .string(configuration.version)),
            ])
        )
    }
}
