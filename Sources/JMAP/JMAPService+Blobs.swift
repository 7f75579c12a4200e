import Base64Coding
import Directory
import Foundation
import HTTP1
import JSON
import ClientAddress
import MailStore
import ServerKit

extension JMAPService {
    /// `POST /jmap/upload/{accountId}` (RFC 8620 section 6.1): the body becomes a blob of the account, counted
    /// against its quota for the hour it is kept.
    func upload(_ request: HTTPRequest, account: JMAPAccount, accountID: String, client: ClientAddressKey)
        async throws -> HTTPResponse
    {
        guard accountID == account.id else {
            throw RequestError(status: .notFound, type: "about:blank", detail: "No such account for this token.")
        }
        if let refusal = takeUploadVolume(request.body.count, for: client) {
            var response = RequestError.uploadVolume(refusal).response
            response.headers.setRetryAfter(refusal)
            return response
        }
        let type = Self.mediaType(request.headers["Content-Type"]) ?? "application/octet-stream"
        let id: String
        do {
            id = try await store.putBlob(
                address: account.address, type: type, data: request.body, quota: account.quota, now: clock())
        } catch MailStoreError.quotaExceeded {
            throw RequestError.overQuota
        }
        return .noStoreJSON(.created, .object([
            ("accountId", .string(account.id)), ("blobId", .string(id)), ("type", .string(type)),
            ("size", .int(Int64(request.body.count))),
        ]))
    }

    /// `GET /jmap/download/{accountId}/{blobId}/{name}?type=` (RFC 8620 section 6.2).
    func download(_ request: HTTPRequest, account: JMAPAccount, parameters: RouteParameters) async throws
        -> HTTPResponse
    {
        guard account.permissions.contains(.read) else {
            throw AuthenticationRefusal(
                .insufficientScope(required: .read), "Downloading a blob needs the mail.read scope, which this grant lacks.")
        }
        guard parameters["accountId"] == account.id, let blobID = parameters["blobId"],
            let blob = try await store.blob(address: account.address, id: blobID)
        else { throw RequestError(status: .notFound, type: "about:blank", detail: "No such blob in this account.") }
        // A blob holds what anyone mailed here (an attachment): the rule of received bytes (``ReceivedBytes``), with
        // the type the URL names, saved under its name; a blob never changes, so it may be cached.
        let type = Self.mediaType(request.queryItem("type")) ?? blob.type
        var response = ReceivedBytes.response(
            blob.data, contentType: type, .attachment(filename: parameters["name"] ?? "blob"))
        response.headers.replaceOrAdd("Cache-Control", "private, immutable, max-age=31536000")
        return response
    }

    /// `type/subtype` with its parameters, or nil when `text` is no media type (or could carry a line break).
    static func mediaType(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
            text.split(separator: ";").first?.split(separator: "/").count == 2,
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        else { return nil }
        return text
    }

    /// `Blob/upload` (RFC 9404 section 4.1): each blob from `data:asText`, `data:asBase64` and slices of other
    /// blobs (`blobId`, `offset`, `length`), concatenated. The blobs of one request hold at most `maxSizeUpload`
    /// bytes together, count against the account's quota and the client's upload volume, and expire in an hour.
    func blobUpload(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let create = try arguments.object("create") ?? []
        try checkSetSize(create.count)
        var created: [(String, JSONValue)] = [], notCreated: [(String, JSONValue)] = []
        for (creationID, value) in create {
            do {
                guard let sources = value["data"]?.arrayValue else {
                    throw SetError.invalidProperties("A blob needs `data`: an array of data sources.", ["data"])
                }
                guard sources.count <= configuration.maxDataSources else {
                    throw SetError(.tooManyDataSources, description: "At most \(configuration.maxDataSources).")
                }
                var data: [UInt8] = []
                for source in sources {
                    data += try await dataSource(source, call, room: call.uploadBytesLeft - data.count)
                }
                if let refusal = takeUploadVolume(data.count, for: call.client) {
                    throw SetError(.rateLimit, description: RequestError.uploadVolume(refusal).detail)
                }
                let type = Self.mediaType(value["type"]?.stringValue) ?? "application/octet-stream"
                let id: String
                do {
                    id = try await store.putBlob(
                        address: call.account.address, type: type, data: data, quota: call.account.quota, now: clock())
                } catch MailStoreError.quotaExceeded {
                    throw SetError(.overQuota, description: "The blob would pass the account's quota.")
                }
                call.uploadBytesLeft -= data.count
                call.createdIDs[creationID] = id
                created.append((creationID, .object([
                    ("id", .string(id)), ("type", .string(type)), ("size", .int(Int64(data.count))),
                ])))
            } catch let error as SetError {
                notCreated.append((creationID, error.json))
            }
        }
        return .object([
            ("accountId", .string(call.account.id)), ("created", created.isEmpty ? .null : .object(created)),
            ("notCreated", notCreated.isEmpty ? .null : .object(notCreated)),
        ])
    }

    /// The bytes of one data source, or `tooLarge` when they would not fit in `room`, found before a slice of
    /// another blob is copied (one big blob named 64 times stops at the first copy that does not fit).
    private func dataSource(_ source: JSONValue, _ call: JMAPCall, room: Int) async throws -> [UInt8] {
        func fitting(_ length: Int) throws(SetError) {
            guard length <= room else {
                throw SetError(
                    .tooLarge,
                    description: "The blobs of one request hold at most \(configuration.maxSizeUpload) bytes.")
            }
        }
        guard let pairs = source.objectValue else {
            throw SetError.invalidProperties("A data source is an object.", ["data"])
        }
        if let text = source["data:asText"]?.stringValue, pairs.count == 1 {
            try fitting(text.utf8.count)
            return Array(text.utf8)
        }
        if let base64 = source["data:asBase64"]?.stringValue, pairs.count == 1 {
            guard let data = Base64.decode(base64) else {
                throw SetError.invalidProperties("`data:asBase64` is not base64.", ["data"])
            }
            try fitting(data.count)
            return data
        }
        if let given = source["blobId"]?.stringValue {
            guard let id = call.id(given), let blob = try await store.blob(address: call.account.address, id: id) else {
                var error = SetError(.blobNotFound, description: "No blob \(given) in this account.")
                error.notFound = [.string(given)]
                throw error
            }
            let count = Int64(blob.data.count)
            let offset = source["offset"]?.intValue ?? 0
            let length = source["length"]?.intValue ?? (count - offset)
            guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
                throw SetError(.invalidProperties, description: "The slice passes the end of blob \(given).")
            }
            try fitting(Int(length))
            return Array(blob.data[Int(offset)..<Int(offset + length)])
        }
        throw SetError.invalidProperties(
            "A data source has exactly one of data:asText, data:asBase64, or blobId (with offset, length).", ["data"])
    }

    /// `Blob/get` (RFC 9404 section 4.2): `data:asText`, `data:asBase64`, `data` and `size`, with `offset` and
    /// `length`.
    func blobGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let wanted = try properties(
            arguments, known: ["id", "data", "data:asText", "data:asBase64", "size"], fallback: ["id", "data", "size"])
        guard let ids = try getIDs(arguments, call) else {
            throw MethodError.invalidArguments("Blob/get needs `ids`.")
        }
        let offset = try arguments.int("offset") ?? 0
        let length = try arguments.int("length")
        guard offset >= 0, length ?? 0 >= 0 else {
            throw MethodError.invalidArguments("`offset` and `length` must not be negative.")
        }
        var list: [JSONValue] = []
        var notFound: [JSONValue] = []
        for id in ids {
            guard let blob = try await store.blob(address: call.account.address, id: id) else {
                notFound.append(.string(id))
                continue
            }
            let start = min(offset, blob.data.count)
            let rest = blob.data.count - start
            let end = length.map { $0 > rest ? blob.data.count : start + $0 } ?? blob.data.count
            let slice = Array(blob.data[start..<end])
            let truncated = offset > blob.data.count || (length.map { $0 > rest } ?? false)
            let text = String(validating: slice, as: UTF8.self)
            var pairs: [(String, JSONValue)] = [("id", .string(id))]
            for property in wanted where property != "id" {
                switch property {
                case "size": pairs.append(("size", .int(Int64(blob.data.count))))
                case "data:asText": pairs.append(("data:asText", text.map(JSONValue.string) ?? .null))
                case "data:asBase64": pairs.append(("data:asBase64", .string(Base64.encode(Array(slice)))))
                default:
                    pairs.append(
                        text.map { ("data:asText", .string($0)) }
                            ?? ("data:asBase64", .string(Base64.encode(Array(slice)))))
                }
            }
            if wanted.contains(where: { $0.hasPrefix("data") }) {
                pairs.append(("isEncodingProblem", .bool(text == nil && wanted.contains("data:asText"))))
                pairs.append(("isTruncated", .bool(truncated)))
            }
            let item = JSONValue.object(pairs)
            try call.charge(item)
            list.append(item)
        }
        return .object([("accountId", .string(call.account.id)), ("list", .array(list)), ("notFound", .array(notFound))])
    }
}
