/// The bundled JMAP flows of `run_preset`, each with the variables it takes (checked as a tool's arguments are).
enum MCPPresets {
    static let names = ["list_inbox", "send_mail", "send_mail_with_attachment", "reply"]

    /// The variables of preset `name` as a tool's parameters; nil for an unknown preset.
    static func parameters(_ name: String) -> [MCPParameter]? {
        let send = [
            MCPParameter("to", .addresses, required: true, "Recipient address(es)."),
            MCPParameter("subject", .string, required: true, "The subject."),
            MCPParameter("body", .string, required: true, "The plain-text body."),
            MCPParameter("cc", .addresses, "Cc address(es)."), MCPParameter("bcc", .addresses, "Bcc address(es)."),
        ]
        switch name {
        case "list_inbox": return [MCPParameter("limit", .integer(1...50), "How many messages (default 25).")]
        case "send_mail": return send
        case "send_mail_with_attachment":
            return send + [MCPParameter("attachments", .attachments, required: true, "The files.")]
        case "reply":
            return [
                MCPParameter("message_id", .string, required: true, "The message to answer."),
                MCPParameter("body", .string, required: true, "The plain-text reply."),
            ]
        default: return nil
        }
    }
}
