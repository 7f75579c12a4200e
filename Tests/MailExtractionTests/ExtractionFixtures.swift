import MIME

@testable import MailExtraction

/// Messages built from their parts, for the known-answer tests.
enum ExtractionFixtures {
    static func message(subject: String? = nil, text: String? = nil, html: String? = nil) -> ParsedMessage {
        var message = ParsedMessage()
        message.subject = subject
        message.textBody = text
        message.htmlBody = html
        return message
    }

    /// The code values found in a message made of these parts.
    static func codes(subject: String? = nil, text: String? = nil, html: String? = nil) -> [String] {
        MessageExtraction.extract(from: message(subject: subject, text: text, html: html)).codes.map(\.value)
    }

    static func links(subject: String? = nil, text: String? = nil, html: String? = nil) -> [ExtractedLink] {
        MessageExtraction.extract(from: message(subject: subject, text: text, html: html)).links
    }
}
