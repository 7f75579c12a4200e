import HTTP1
import JSON
import MIME
import MailStore

/// The servers, list, search, get and delete routes.
extension MailosaurAPI {
    /// `GET api/servers`: `{"items":[Server]}`, each with how many messages it holds.
    func listServers(_ call: MailosaurCall) async throws -> HTTPResponse {
        var items: [JSONValue] = []
        for server in try await servers(of: call.viewer) {
            items.append(MailosaurJSON.server(server, messages: try await count(server)))
        }
        return Self.json(.object([("items", .array(items))]))
    }

    /// `GET api/servers/{id}`: the `Server`; 404 for one the credential does not see.
    func getServer(_ call: MailosaurCall) async throws -> HTTPResponse {
        let server = try await server(call.parameter("id"), of: call.viewer)
        return Self.json(MailosaurJSON.server(server, messages: try await count(server)))
    }

    /// `GET api/messages?server=&page=&itemsPerPage=&receivedAfter=&dir=`: `{"items":[MessageSummary]}`, newest
    /// first.
    func listMessages(_ call: MailosaurCall) async throws -> HTTPResponse {
        let query = try MailosaurQuery(call.request.queryItem, configuration: configuration)
        let server = try await server(query.server, of: call.viewer)
        return Self.summaries(try await mail.listRecords(query.selection(of: server, .all([]))), server: server)
    }

    /// `POST api/messages/search?server=&page=&itemsPerPage=&receivedAfter=&dir=` with `SearchCriteria`: the
    /// summaries of the messages that match, newest first; 400 when no criterion is given. An empty answer carries
    /// `x-ms-delay`, the milliseconds the SDK waits before it asks again while its `messages.get` waits.
    func searchMessages(_ call: MailosaurCall) async throws -> HTTPResponse {
        let query = try MailosaurQuery(call.request.queryItem, configuration: configuration)
        let criteria = try MailosaurCriteria(json: call.request.body)
        guard !criteria.isEmpty else {
            throw MailosaurRefusal.invalid("criteria", "Give at least one of sentTo, sentFrom, subject and body.")
        }
        let server = try await server(query.server, of: call.viewer)
        let records = try await mail.listRecords(query.selection(of: server, criteria.filter))
        var response = Self.summaries(records, server: server)
        if records.isEmpty {
            response.headers.replaceOrAdd(
                "x-ms-delay", configuration.searchRetryDelays.map(String.init).joined(separator: ","))
        }
        return response
    }

    /// `GET api/messages/{id}`: the `Message`; 404 for one the credential does not see.
    func getMessage(_ call: MailosaurCall) async throws -> HTTPResponse {
        let id = call.parameter("id")
        guard let record = try await mail.record(in: call.viewer.scope, id: id) else { throw MailosaurRefusal.notFound }
        return Self.json(try await message(record))
    }

    /// `DELETE api/messages/{id}`: 204; 404 for one the credential does not see.
    func deleteMessage(_ call: MailosaurCall) async throws -> HTTPResponse {
        let deleted = try await mail.delete(MailSelection(call.viewer.scope, .ids([call.parameter("id")])))
        guard !deleted.isEmpty else { throw MailosaurRefusal.notFound }
        return Self.noContent()
    }

    /// `DELETE api/messages?server=`: every message of the server; 204.
    func deleteAllMessages(_ call: MailosaurCall) async throws -> HTTPResponse {
        guard let id = call.request.queryItem("server"), !id.isEmpty else {
            throw MailosaurRefusal.invalid("server", "The server parameter is required.")
        }
        let server = try await server(id, of: call.viewer)
        _ = try await mail.delete(MailSelection(.address(server.address)))
        return Self.noContent()
    }

    /// `{"items":[MessageSummary]}` of `records` in `server`.
    static func summaries(_ records: [MailMessageRecord], server: MailosaurServer) -> HTTPResponse {
        json(
            .object([("items", .array(records.map { MailosaurJSON.summary($0, server: server.id) }))]))
    }

    /// The `Message` of `record`: its extraction and header fields read from the store.
    func message(_ record: MailMessageRecord) async throws -> JSONValue {
        let id = record.summary.id
        let scope = MailScope.address(record.summary.address)
        let extraction = try await mail.extractions(in: scope, ids: [id])[id]
        let raw = try await mail.raw(in: scope, id: id) ?? []
        let headers =
            (try? MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: max(raw.count, 1))))?.headers ?? []
        return MailosaurJSON.message(
            record, server: MailosaurServer.id(of: record.summary.address), extraction: extraction, headers: headers,
            files: publicURL + (configuration.basePath ?? "") + "/api/files/attachments/")
    }

    /// How many messages `server` holds.
    private func count(_ server: MailosaurServer) async throws -> Int {
        try await mail.counts(in: .address(server.address), matching: .all([])).total
    }
}
