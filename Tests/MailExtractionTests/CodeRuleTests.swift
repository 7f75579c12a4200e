import Testing

@testable import MailExtraction

/// Known answers for each rule of what is a code and what is not (issue 85), one rule a test.
@Suite("Extraction: what is a code")
struct CodeRuleTests {
    typealias F = ExtractionFixtures

    @Test("a code word before, after or above the code finds it, in the order best first")
    func keywords() {
        #expect(F.codes(text: "Your verification code is 482913.") == ["482913"])
        #expect(F.codes(text: "482913 is your Acme verification code") == ["482913"])
        #expect(
            F.codes(text: "Hello,\n\nYour one-time passcode:\n\n  739201\n\nIt expires in 10 minutes.") == ["739201"])
        #expect(F.codes(text: "Enter this code within 15 minutes: 553311") == ["553311"])
        #expect(F.codes(text: "Use PIN 4821 to unlock your locker.") == ["4821"])
        #expect(F.codes(text: "Your new code is 482913. Your previous code 551234 no longer works.") == ["482913"])
        #expect(F.codes(text: "Enter 482913 on the sign-in page.") == ["482913"])
        #expect(F.codes(text: "Code:482913") == ["482913"])
        #expect(F.codes(text: "Your code is ready at 10:4821") == [])
    }

    @Test("a code at the very start of the text and of the subject (no character before it)")
    func atStart() {
        #expect(F.codes(text: "918273 is your code") == ["918273"])
        #expect(F.codes(subject: "918273 is your Acme sign-in code", text: "Hi there") == ["918273"])
    }

    @Test("the text part is read first: the HTML only when it has no code, so parts that disagree give the text's")
    func partsDisagree() {
        #expect(F.codes(text: "Your code is 111111", html: "<p>Your code is</p><h1>222222</h1>") == ["111111"])
        #expect(
            F.codes(text: "View this email in your browser.", html: "<p>Your code is</p><h1>222222</h1>") == ["222222"])
        let extraction = MessageExtraction.extract(
            from: F.message(subject: "333333 is your code", text: "Your code: 333333", html: "<b>Code: 333333</b>"))
        #expect(extraction.codes.map(\.sources) == [[.subject, .text]])
        #expect(extraction.codes.first?.reasons.contains(.severalSources) == true)
    }

    @Test("the code only in the subject is found")
    func subjectOnly() {
        #expect(F.codes(subject: "Your Acme verification code: 640912", text: "Thanks for signing up.") == ["640912"])
    }

    @Test("a code word in the subject names a code that stands alone in the body; a selling subject names none")
    func subjectNamesLoneCode() {
        #expect(F.codes(subject: "Your verification code", text: "123456") == ["123456"])
        #expect(F.codes(subject: "Your Acme sign-in code", text: "Hi,\n\n482913\n\nThanks") == ["482913"])
        #expect(F.codes(subject: "Your discount code inside", text: "123456") == [])
        #expect(F.codes(subject: "Weekly digest", text: "123456") == [])
    }

    @Test("a year, alone or beside a code, is never a code; the code beside it is")
    func years() {
        #expect(F.codes(text: "Your verification code is 2024") == ["2024"])  // a code word right before it
        #expect(F.codes(text: "© 2024 Acme Inc. All rights reserved.\nYour code expires in 2025") == [])
        #expect(F.codes(text: "Your code is 551234.\n\n© 2024 Acme Inc.") == ["551234"])
        #expect(F.codes(html: "<h1>2024</h1><p>Your verification code: <b>771234</b></p>") == ["771234"])
    }

    @Test("a CSS colour or a hex id is never a code, also in an HTML-only mail")
    func colours() {
        let html = """
            <html><head><style>body { color: #202123; } .x { background: #FFFFFF }</style></head>
            <body><p style="color:#202123">Your verification code is</p><p style="font-size:24px"><b>583920</b></p>
            <p style="color: #202123">#202123 and #A1B2C3 are colours</p></body></html>
            """
        #expect(F.codes(html: html) == ["583920"])
        #expect(F.codes(html: #"<p style="color:#202123">Your code</p><p>#202123</p>"#) == [])
    }

    @Test("order, invoice, ticket and reference numbers labelled so are not codes")
    func labelledNumbers() {
        #expect(F.codes(text: "Order number: 12345678\nInvoice #: 99887766\nTicket 554433") == [])
        #expect(F.codes(text: "Your verification code for order 1234 is 567890") == ["567890"])
        #expect(F.codes(text: "Your code is 482913 (order number 99999)") == ["482913"])
        #expect(F.codes(text: "Reference code: XK72PQ") == [])
        #expect(F.codes(text: "Booking confirmation number: 48291374") == [])
    }

    @Test("prices, amounts, times, dates, phone and postal numbers are not codes")
    func notCodes() {
        #expect(F.codes(text: "Your code: total $1234 paid") == [])
        #expect(F.codes(text: "Verification code 12.50 EUR 4500 € 10:30 2024-05-01 05/01/2024") == [])
        #expect(F.codes(text: "Your code is 123456. Questions? Call 1-800-555-0199 or +44 20 7946 0958.") == ["123456"])
        #expect(F.codes(text: "Security code:\n1600 Amphitheatre Parkway, Mountain View, CA 94043") == [])
        #expect(F.codes(text: "Code: 555 123 4567") == [])
    }

    @Test("the visible end of a masked phone or card number is not a code")
    func masked() {
        #expect(F.codes(text: "We sent a verification code to +1 *** *** 4821.") == [])
        #expect(F.codes(text: "Code sent to •••• 4821") == [])
        #expect(F.codes(text: "Your code was sent to XXXX-4821") == [])
        #expect(F.codes(text: "Your code is **482913**") == ["482913"])
        #expect(F.codes(text: "Your code was sent to xxx-xxx-4821. Your code: 482913") == ["482913"])
        #expect(F.codes(text: "AUTH CODE: 048213") == [])
        #expect(F.codes(text: "Your Xbox code: 482913") == ["482913"])
    }

    @Test("digits inside URLs and email addresses are not codes")
    func urlsAndEmails() {
        #expect(F.codes(text: "Your code: https://example.com/verify/483920 or 483920@example.com") == [])
        #expect(F.codes(text: "Verification code: see www.example.com/c/554433") == [])
    }

    @Test("spaced and hyphenated codes, letters and digits, a short prefix")
    func shapes() {
        #expect(F.codes(text: "Your code is 123 456") == ["123 456"])
        #expect(F.codes(text: "Your code is 123-456") == ["123-456"])
        #expect(F.codes(text: "Your verification code: ABC-123") == ["ABC-123"])
        #expect(F.codes(text: "Your sign-in code is X7K9P2") == ["X7K9P2"])
        #expect(F.codes(text: "G-482913 is your Google verification code.") == ["482913"])
        #expect(F.codes(text: "Your code is abc123 or Abc123") == [])
    }

    @Test("an amount takes the label before it, so the code word before the amount reaches the code")
    func amountsTakeLabels() {
        #expect(
            F.codes(text: "Your OTP for transaction of INR 5,000.00 at AMAZON is 482913. Valid for 5 mins.") == [
                "482913"
            ])
        #expect(F.codes(text: "Your OTP for card ending 4242 is 551234") == ["551234"])
        #expect(F.codes(text: "Verification code: Rs. 4500 paid") == [])
    }

    @Test("a code set one character a cell, or spaced out on its own line, is one code")
    func spelledOut() {
        let cells =
            "<p>Your verification code:</p><table><tr>" + "482913".map { "<td>\($0)</td>" }.joined() + "</tr></table>"
        #expect(F.codes(html: cells) == ["482913"])
        #expect(F.codes(text: "Your code is\n\n4 8 2 9 1 3\n") == ["482913"])
        #expect(F.codes(text: "Steps:\n1\n2\n3\n4\nDone") == [])
    }

    @Test("promo, discount, ZIP and error codes are not one-time codes")
    func otherCodes() {
        #expect(F.codes(text: "Use promo code SAVE20 for 20% off!") == [])
        #expect(F.codes(text: "Your discount code: WINTER2024") == [])
        #expect(F.codes(text: "ZIP code 94043") == [])
        #expect(F.codes(text: "Gutscheincode: HERBST25") == [])
        #expect(F.codes(text: "Error code 5001") == [])
    }

    @Test("when nothing names a code, nothing is a code: shape alone is never enough")
    func precision() {
        #expect(F.codes(text: "Thanks for your purchase!\n\n482913\n\nSee you soon.") == [])
        #expect(F.codes(html: "<h1>482913</h1><p>Great news from Acme.</p>") == [])
    }

    @Test("position: a code alone and emphasized under a subject that names it")
    func position() {
        #expect(F.codes(subject: "Your Acme verification code", html: "<p>Hi!</p><h1>482913</h1>") == ["482913"])
        // An act word, above or in the subject, hints without naming: a newsletter's big number stays a number, and
        // so does a number under a prompt without a code word (precision first).
        #expect(F.codes(subject: "Sign up for our recap", html: "<p>Sign up today!</p><h1>2500</h1>") == [])
        #expect(F.codes(subject: "Verify your email", html: "<p>Enter this to verify:</p><h1>482913</h1>") == [])
        #expect(
            F.codes(subject: "Your 2024 review", html: "<p>Sign in to see your deals.</p><p><b>482913</b></p>") == [])
        #expect(F.codes(subject: "Use code THANKS24 for 15% off", html: "<h2>4821</h2><p>stores</p>") == [])
        #expect(F.codes(text: "To sign in, type the following six digits:\n\n482913") == ["482913"])
        #expect(F.codes(text: "Enter the last 4 digits of your card: 4821") == [])
    }

    @Test("keywords of other languages")
    func languages() {
        #expect(F.codes(text: "您的验证码是123456，5分钟内有效。") == ["123456"])
        #expect(F.codes(text: "認証コード：654321") == ["654321"])
        #expect(F.codes(text: "인증번호는 [112233] 입니다.") == ["112233"])
        #expect(F.codes(text: "Ihr Bestätigungscode lautet: 445566") == ["445566"])
        #expect(F.codes(text: "Tu código de verificación es 778899") == ["778899"])
        #expect(F.codes(text: "Seu código de acesso: 223344") == ["223344"])
        #expect(F.codes(text: "Votre code de vérification est : 990011") == ["990011"])
        #expect(F.codes(text: "Doğrulama kodunuz: 482913") == ["482913"])
        #expect(F.codes(text: "Din verifieringskod är 482913") == ["482913"])
        #expect(F.codes(text: "Ваш код подтверждения: 482913") == ["482913"])
    }

    @Test("a promotion's code is not a one-time code, nor is a code word that qualifies another noun")
    func promotionsAndModifiers() {
        #expect(F.codes(text: "Use code SPRING25 for 25% off your next order") == [])
        #expect(F.codes(text: "Enter code 4821 at checkout") == [])
        #expect(F.codes(text: "Your code review is ready: 12 comments on PR 4821") == [])
        #expect(F.codes(text: "Use code SUMMER2024 for free shipping") == [])
        #expect(F.codes(text: "Use code TAKE10 to get $10 off") == [])
        #expect(F.codes(text: "Your code SPRING24 is waiting.") == [])
        #expect(F.codes(text: "Here are your backup codes:\n4821-9376\n1193-4452") == [])
        #expect(F.codes(text: "Approved. Authorization code: 482913") == [])
        #expect(F.codes(text: "Your door code is 4821#") == [])
        #expect(F.codes(subject: "Wonka Shop", text: "482913 is your Wonka Shop verification code.") == ["482913"])
        #expect(F.codes(text: "Your Zoom verification code is 482913") == ["482913"])
    }

    @Test("a code word on the line above names the code whatever else that line says; a gift card's PIN is not a code")
    func lineAbove() {
        #expect(F.codes(text: "Use this verification code to sign in to Paper Street:\n\n482913") == ["482913"])
        #expect(F.codes(text: "Order number:\n48291374") == [])
        #expect(F.codes(text: "Gift card number: 1234567812345678\nPIN: 4821") == [])
    }

    @Test("a meeting's id and passcode are not a sign-in's code")
    func meetings() {
        #expect(F.codes(text: "Join Zoom Meeting\nMeeting ID: 812 3456 7890\nPasscode: 482913") == [])
    }
}
