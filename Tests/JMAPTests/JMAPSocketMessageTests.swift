import JSON
import Testing
import WebSocket

@testable import JMAP

@Suite("JMAP over WebSocket: the messages of RFC 8887 read and written")
struct JMAPSocketMessageTests {
    static func read(_ text: String, max: Int = 10_000) -> Result<JMAPSocketMessage, JMAPSocketError> {
        JMAPSocketMessage.read(.text(text), maxSizeRequest: max)
    }

    static func error(_ text: String, max: Int = 10_000) throws -> JMAPSocketError {
        guard case .failure(let error) = read(text, max: max) else {
            Issue.record("\(text) was read")
            throw JMAPSocketError(requestID: nil, error: .notJSON)
        }
        return error
    }

    @Test("A Request keeps its id and the whole object; an absent id is nil")
    func request() throws {
        let text = #"{"@type":"Request","id":"R1","using":["urn:ietf:params:jmap:core"],"methodCalls":[]}"#
        let envelope = try JSONValue.parse(Array(text.utf8))
        #expect(try Self.read(text).get() == .request(id: "R1", envelope: envelope))
        let bare = #"{"@type":"Request","using":[],"methodCalls":[]}"#
        #expect(try Self.read(bare).get() == .request(id: nil, envelope: try JSONValue.parse(Array(bare.utf8))))
    }

    @Test("WebSocketPushEnable: dataTypes null or names, pushState null or a string; WebSocketPushDisable")
    func push() throws {
        #expect(try Self.read(#"{"@type":"WebSocketPushEnable"}"#).get() == .pushEnable(dataTypes: nil, pushState: nil))
        #expect(
            try Self.read(#"{"@type":"WebSocketPushEnable","dataTypes":null,"pushState":null}"#).get()
                == .pushEnable(dataTypes: nil, pushState: nil))
        #expect(
            try Self.read(#"{"@type":"WebSocketPushEnable","dataTypes":["Email","Calendar"],"pushState":"42.7"}"#).get()
                == .pushEnable(dataTypes: ["Email", "Calendar"], pushState: "42.7"))
        #expect(try Self.read(#"{"@type":"WebSocketPushDisable"}"#).get() == .pushDisable)
    }

    @Test("Not JSON, binary, or over maxSizeRequest: notJSON or limit, requestId null")
    func notJSON() throws {
        for text in ["The quick brown fox", "{", #"{"@type":"Request","id":"R1""#, ""] {
            let error = try Self.error(text)
            #expect(error.error == .notJSON)
            #expect(error.requestID == nil)
        }
        guard case .failure(let binary) = JMAPSocketMessage.read(.binary(Array("{}".utf8)), maxSizeRequest: 100) else {
            Issue.record("a binary message was read")
            return
        }
        #expect(binary.error == .notJSON)
        let big = try Self.error(#"{"@type":"Request","id":"R1","using":[],"methodCalls":[]}"#, max: 20)
        #expect(big.error.type == "urn:ietf:params:jmap:error:limit")
        #expect(big.error.limit == "maxSizeRequest")
    }

    @Test("Not an object, no or an unknown @type, a wrong id or member type: notRequest, with the id when a string")
    func notRequest() throws {
        let cases: [(String, String?)] = [
            ("[1,2]", nil), (#""Request""#, nil), (#"{"using":[],"methodCalls":[]}"#, nil),
            (#"{"@type":"Response","id":"R2"}"#, "R2"), (#"{"@type":7,"id":"R3"}"#, "R3"),
            (#"{"@type":"Request","id":5,"using":[],"methodCalls":[]}"#, nil),
            (#"{"@type":"WebSocketPushEnable","dataTypes":"Email","id":"R4"}"#, "R4"),
            (#"{"@type":"WebSocketPushEnable","dataTypes":[1]}"#, nil),
            (#"{"@type":"WebSocketPushEnable","pushState":3}"#, nil),
        ]
        for (text, id) in cases {
            let error = try Self.error(text)
            #expect(error.error.type == "urn:ietf:params:jmap:error:notRequest", "\(text)")
            #expect(error.requestID == id, "\(text)")
        }
    }

    @Test("RequestError: @type, requestId (null when unknown), then the problem's members (RFC 8887 section 4.4)")
    func requestError() throws {
        let notJSON = JMAPSocketError(requestID: nil, error: .notJSON).json
        #expect(notJSON["@type"] == "RequestError")
        #expect(notJSON["requestId"] == .null)
        #expect(notJSON["type"] == "urn:ietf:params:jmap:error:notJSON")
        #expect(notJSON["status"] == 400)
        #expect(notJSON["detail"]?.stringValue != nil)
        #expect(notJSON["limit"] == nil)
        let limit = JMAPSocketError(requestID: "R9", error: .limit("maxCallsInRequest", "At most 16.")).json
        #expect(limit["requestId"] == "R9")
        #expect(limit["limit"] == "maxCallsInRequest")
    }

    @Test("Response: @type, requestId when the request had an id, then the response object's members")
    func response() throws {
        let body: JSONValue = .object([("methodResponses", .array([])), ("sessionState", "7")])
        let answered = JMAPSocketMessage.response(body, requestID: "R1")
        #expect(answered.objectValue?.map(\.0) == ["@type", "requestId", "methodResponses", "sessionState"])
        #expect(answered["@type"] == "Response")
        #expect(answered["requestId"] == "R1")
        #expect(JMAPSocketMessage.response(body, requestID: nil)["requestId"] == nil)
    }

    @Test("StateChange: the account's changed types and states, with pushState when given")
    func stateChange() throws {
        let change = EventSourceEvent.stateChange(
            accountID: "acct-ada", changed: [("Email", "5"), ("EmailDelivery", "5")], pushState: "5")
        #expect(
            String(decoding: change.serialize(), as: UTF8.self)
                == #"{"@type":"StateChange","changed":{"acct-ada":{"Email":"5","EmailDelivery":"5"}},"pushState":"5"}"#)
        let plain = EventSourceEvent.stateChange(accountID: "a", changed: [("Email", "1")], pushState: nil)
        #expect(plain["pushState"] == nil)
    }
}
