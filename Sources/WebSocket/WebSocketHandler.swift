/// What a WebSocket route runs once the connection is a WebSocket: one async function whose socket lives as long
/// as it runs (the shape of hummingbird-websocket's `WebSocketRouter` handlers).
///
/// - `inbound`: the client's messages, in order; it ends when the socket stops being open (the client closed or
///   went away, the handler closed it, the server drains).
/// - `outbound`: messages out and the closing handshake.
///
/// The rules, in the order of the socket's life:
/// 1. The function starts in a task of its own once the `101` is written (messages read with the upgrade are
///    waiting in `inbound`).
/// 2. It returns: the server closes with 1000. It throws: the server closes with 1011 and an empty reason (the
///    error is the handler's to report; nothing of it reaches the client).
/// 3. The socket stops being open (the client's close frame or its going away, the handler's `outbound.close`, a
///    send queue or unread messages past `maxQueuedBytes`, the server draining with 1001): `inbound` ends and the
///    function's task is cancelled, so its loops (a `MailStore` change stream, a sleep) end by themselves.
/// 4. Pings, pongs, the keep-alive and the closing handshake stay in the server's `WebSocketSession`.
/// 5. What the client sends waits in `inbound` until read: more than `maxQueuedBytes` unread closes the socket with
///    1008. A handler that has no use for the client's messages still reads them, as the example does.
///
/// An example: a push-only socket that sends each change and drops what the client says.
///
///     router.add(.GET, "/api/events", .webSocket { request, context, _, _ in
///         .accept(subprotocol: nil) { inbound, outbound in
///             try await inbound.discarding {
///                 for try await event in store.changeStream(of: nil, quiet: .seconds(30)) where event != .quiet {
///                     outbound.send(.text(#"{"type":"changed"}"#))
///                 }
///             }
///         }
///     })
public typealias WebSocketHandler = @Sendable (_ inbound: WebSocketInbound, _ outbound: WebSocketOutbound)
    async throws -> Void
