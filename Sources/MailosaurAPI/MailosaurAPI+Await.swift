import HTTP1
import MailStore

/// The wait: `POST api/messages/await`, Mailosaur's long poll, on the one change stream.
extension MailosaurAPI {
    /// `POST api/messages/await?server=&timeout=&receivedAfter=` with `SearchCriteria` (none: any message): the
    /// newest `Message` of the server that matches, at once when one is stored, else as soon as one is (the server's
    /// change stream wakes the wait within the delivery's commit, on any instance); 204 with no body once `timeout`
    /// milliseconds (default and cap: ``MailosaurConfiguration``) have passed, as Mailosaur's long poll answers.
    func awaitMessage(_ call: MailosaurCall) async throws -> HTTPResponse {
        let query = try MailosaurQuery(
            { name in name == "itemsPerPage" || name == "page" ? nil : call.request.queryItem(name) },
            configuration: configuration)
        let criteria = try MailosaurCriteria(json: call.request.body)
        let milliseconds = try Self.timeout(call.request.queryItem("timeout"), configuration)
        let server = try await server(query.server, of: call.viewer)
        var selection = query.selection(of: server, criteria.filter)
        (selection.start, selection.limit) = (0, 1)
        let wanted = selection
        let found = try await mail.changeStream(of: server.address, until: .now + .milliseconds(milliseconds))
            .firstLook { _ in try await self.mail.listRecords(wanted).first }
        guard let found else { return Self.noContent() }
        return Self.json(try await message(found))
    }

    /// The milliseconds of `timeout`: the default when absent, at most the maximum.
    /// - Throws: ``MailosaurRefusal`` (400) for a value that is no whole number from 0.
    static func timeout(_ text: String?, _ configuration: MailosaurConfiguration) throws -> Int {
        guard let text else { return configuration.awaitDefaultMilliseconds }
        guard let milliseconds = Int(text), milliseconds >= 0 else {
            throw MailosaurRefusal.invalid("timeout", "Must be a whole number of milliseconds from 0.")
        }
        return min(milliseconds, configuration.awaitMaximumMilliseconds)
    }
}
