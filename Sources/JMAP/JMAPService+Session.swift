import HTTP1
import JSON
import MailStore
import ServerKit

extension JMAPService {
    /// `GET /.well-known/jmap`: the session resource (RFC 8620 section 2) of the token's account, with the event
    /// source's URL template (section 7.3) and the WebSocket's URL (RFC 8887 section 4.1).
    func session(_ account: JMAPAccount) async throws -> HTTPResponse {
        let state = try await store.state(address: account.address)
        let c = configuration
        let core: JSONValue = .object([
            ("maxSizeUpload", .int(Int64(c.maxSizeUpload))), ("maxConcurrentUpload", .int(Int64(c.maxConcurrentUpload))),
            ("maxSizeRequest", .int(Int64(c.maxSizeRequest))),
            ("maxConcurrentRequests", .int(Int64(c.maxConcurrentRequests))),
            ("maxCallsInRequest", .int(Int64(c.maxCallsInRequest))), ("maxObjectsInGet", .int(Int64(c.maxObjectsInGet))),
            ("maxObjectsInSet", .int(Int64(c.maxObjectsInSet))), ("collationAlgorithms", .array(["i;ascii-casemap"])),
        ])
        // A message is in one folder (decision 35); folders nest and are named within the store's caps.
        let folders = store.folderLimits
        let mail: JSONValue = .object([
            ("maxMailboxesPerEmail", 1), ("maxMailboxDepth", .int(Int64(folders.maxDepth))),
            ("maxSizeMailboxName", .int(Int64(folders.maxNameBytes))),
            ("maxSizeAttachmentsPerEmail", .int(Int64(c.maxSizeUpload))),
            ("emailQuerySortOptions", .array(MailSort.Property.allCases.map { .string($0.rawValue) })), ("mayCreateTopLevelMailbox", true),
        ])
        let submission: JSONValue = .object([("maxDelayedSend", 0), ("submissionExtensions", .object([]))])
        let blob: JSONValue = .object([
            ("maxSizeBlobSet", .int(Int64(c.maxSizeUpload))), ("maxDataSources", .int(Int64(c.maxDataSources))),
            ("supportedTypeNames", .array(["Email", "Thread"])), ("supportedDigestAlgorithms", .array([])),
        ])
        let body: JSONValue = .object([
            ("capabilities", .object([
                (Capability.core, core), (Capability.mail, .object([])), (Capability.submission, .object([])),
                (Capability.blob, .object([])), (Capability.extract, .object([])),
                (Capability.webSocket, .object([("url", .string(webSocketURL)), ("supportsPush", true)])),
            ])),
            ("accounts", .object([
                (account.id, .object([
                    ("name", .string(account.address)), ("isPersonal", true), ("isReadOnly", false),
                    ("accountCapabilities", .object([
                        (Capability.mail, mail), (Capability.submission, submission), (Capability.blob, blob),
                        (Capability.extract, .object([])),
                    ])),
                ]))
            ])),
            ("primaryAccounts", .object([
                (Capability.mail, .string(account.id)), (Capability.submission, .string(account.id)),
                (Capability.blob, .string(account.id)),
            ])),
            ("username", .string(account.address)),
            ("apiUrl", .string(c.baseURL + "/jmap/api")),
            ("downloadUrl", .string(c.baseURL + "/jmap/download/{accountId}/{blobId}/{name}?type={type}")),
            ("uploadUrl", .string(c.baseURL + "/jmap/upload/{accountId}")),
            ("eventSourceUrl", .string(c.baseURL + "/jmap/eventsource?types={types}&closeafter={closeafter}&ping={ping}")),
            ("state", .string(String(state))),
        ])
        return .noStoreJSON(.ok, body)
    }
}
