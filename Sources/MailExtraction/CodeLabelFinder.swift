/// Finds the labels of a source (``CodeLabel``): words of Latin script read whole and lower-cased, grouped into
/// phrases when only spaces or hyphens stand between them; words of Chinese, Japanese and Korean found inside the
/// text, which does not separate them. A phrase means what its head word means, qualified by the word before it:
///
/// - a code word (`code`, any word ending in `code`, `OTP`, `PIN`, `código`, `kod`, ...) is a code, unless the word
///   before it (or its own first part, `postcode`, `Gutscheincode`) says it is another code: promo, discount,
///   coupon, gift, referral, postal, ZIP, area, country, error, status, product, order, tracking, QR, bar, source;
/// - a number word (`number`, `ID`, `no.`, `Nr.`, `número`, `Nummer`) is a code when the word before it is of
///   verifying (`PIN number`, `verification number`), else not a code (`order number`, `confirmation number`);
/// - `password` after `one-time` or `temporary` is a code;
/// - otherwise a phrase with a word of a thing that is not a code (order, invoice, phone, total, street ...) is
///   not a code, one with a word of verifying or signing in is an act, one with a word that asks for input a prompt.
enum CodeLabelFinder {
    static func labels(in scalars: [Unicode.Scalar]) -> [CodeLabel] {
        var labels: [CodeLabel] = []
        var phrase: [(word: String, range: Range<Int>)] = []
        var index = 0
        let count = scalars.count
        func flush(before next: String? = nil) {
            // `code review`, `code of conduct`: a code word that qualifies the word after it names no code.
            let modifier = next.map(modifiedNouns.contains) ?? false
            if !(modifier && phrase.last.map({ codeWord($0.word) }) == true), let label = meaning(of: phrase) {
                labels.append(label)
            }
            phrase.removeAll(keepingCapacity: true)
        }
        while index < count {
            let scalar = scalars[index]
            if CodeTokenizer.isEastAsian(scalar) {
                flush()
                if let (length, meaning) = eastAsian(scalars, at: index) {
                    labels.append(CodeLabel(range: index..<index + length, meaning: meaning))
                    index += length
                } else {
                    index += 1
                }
                continue
            }
            guard isWordScalar(scalar) else {
                if scalar == "#" {
                    flush()
                    labels.append(CodeLabel(range: index..<index + 1, meaning: .notCode))
                } else if scalar == "%", index > 0, CodeTokenizer.isDigit(scalars[index - 1]) {
                    // `25%`: a sale's (a code's line holds no percentage).
                    flush()
                    labels.append(CodeLabel(range: index..<index + 1, meaning: .promotion))
                } else if !(scalar == " " || scalar == "-" || scalar == "\u{A0}"), !phrase.isEmpty {
                    // A period after an abbreviation (`No.`, `Nr.`) keeps the phrase: `Order No. 12345`.
                    let last = phrase[phrase.count - 1]
                    if !(scalar == "." && numberAbbreviations.contains(last.word)) { flush() }
                }
                index += 1
                continue
            }
            var end = index + 1
            while end < count, isWordScalar(scalars[end]), !CodeTokenizer.isEastAsian(scalars[end]) { end += 1 }
            let word = String(scalars: scalars[index..<end]).lowercased()
            if word == "off", index >= 2, CodeTokenizer.isDigit(scalars[index - 2]) {
                // `$10 off`: a sale.
                flush()
                labels.append(CodeLabel(range: index..<end, meaning: .promotion))
                index = end
                continue
            }
            let abbreviation = numberAbbreviations.contains(word)
            if isLabelWord(word), !abbreviation || (end < count && ".:º°".unicodeScalars.contains(scalars[end])) {
                phrase.append((word, index..<end))
            } else {
                flush(before: word)
            }
            index = end
        }
        flush()
        return labels
    }

    /// Letters of a word; digits too, so that `2FA` and `G-123456`'s prefix stay whole (a word with a digit is
    /// never a label, and a run of digits never one either).
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isAlphabeticScalar || CodeTokenizer.isDigit(scalar) || scalar == "\u{B0}" || scalar == "\u{BA}"
    }

    private static func isLabelWord(_ word: String) -> Bool {
        labelWords.contains(word) || codeWord(word) || notCodeCompound(word)
    }

    /// Every word of the lists, so that a word of none (most words of a message) costs one lookup, not eleven.
    private static let labelWords = codeWords.union(numberWords).union(numberAbbreviations).union(actWords)
        .union(promptWords).union(notCodeWords).union(qualifiers).union(meetingWords).union(oneTimeWords)
        .union(passwordWords).union(promotionWords)

    private static func meaning(of phrase: [(word: String, range: Range<Int>)]) -> CodeLabel? {
        guard let first = phrase.first, let last = phrase.last else { return nil }
        let range = first.range.lowerBound..<last.range.upperBound
        let words = phrase.map(\.word)
        if words.contains(where: meetingWords.contains) { return CodeLabel(range: range, meaning: .meeting) }
        if words.contains(where: promotionWords.contains) { return CodeLabel(range: range, meaning: .promotion) }
        // The head: the last code, number or password word of the phrase, read with the word before it.
        if let head = words.lastIndex(where: {
            codeWord($0) || numberWords.contains($0) || numberAbbreviations.contains($0) || passwordWords.contains($0)
        }) {
            let word = words[head]
            let before = head > 0 ? words[head - 1] : nil
            let qualified =
                before.map { qualifiers.contains($0) || notCodeWords.contains($0) || notCodeCompound($0) } ?? false
            if codeWord(word) {
                if qualified || qualifierPrefix(word) { return CodeLabel(range: range, meaning: .notCode) }
                return CodeLabel(range: range, meaning: .code)
            }
            if passwordWords.contains(word) {
                if let before, oneTimeWords.contains(before) { return CodeLabel(range: range, meaning: .code) }
            } else if let before, actWords.contains(before) || codeWord(before) || oneTimeWords.contains(before),
                !confirmationWords.contains(before)
            {
                return CodeLabel(range: range, meaning: .code)
            } else {
                return CodeLabel(range: range, meaning: .notCode)
            }
        }
        if words.contains(where: { notCodeWords.contains($0) || notCodeCompound($0) }) {
            return CodeLabel(range: range, meaning: .notCode)
        }
        if words.contains(where: { actWords.contains($0) || oneTimeWords.contains($0) && words.count > 1 }) {
            return CodeLabel(range: range, meaning: .act)
        }
        if words.contains(where: promptWords.contains) { return CodeLabel(range: range, meaning: .prompt) }
        return nil
    }

    /// A word for a code: `code` and its compounds (`passcode`, `Bestätigungscode`), and the code words of other
    /// languages.
    static func codeWord(_ word: String) -> Bool {
        if codeWords.contains(word) { return true }
        for suffix in codeSuffixes where word.utf8.reversed().starts(with: suffix) {
            return !notCodeCodes.contains(word)
        }
        // `kodunuz`, `kodem`, `koodi`: the code word inflected.
        return (word.hasPrefix("kod") || word.hasPrefix("kood")) && word.count <= 8
    }

    /// The endings of a code word's compounds, each as its UTF-8 bytes reversed, compared from the word's end byte by
    /// byte (the words are lower-cased; `código` written decomposed, as mail is not, would not match).
    private static let codeSuffixes = ["code", "codes", "kode", "kod", "codigo", "código", "koden"].map {
        Array($0.utf8.reversed())
    }

    /// `postcode`, `Gutscheincode`: a compound whose first part says it is not a one-time code.
    private static func qualifierPrefix(_ word: String) -> Bool {
        guard word.count > 4 else { return false }
        return qualifiers.contains { word.hasPrefix($0) } || notCodeCodes.contains(word)
    }

    /// `Bestellnummer`, `Telefonnummer`: a German compound of a number that is not a code.
    private static func notCodeCompound(_ word: String) -> Bool {
        (word.hasSuffix("nummer") && word.count > 6 && !word.hasPrefix("pin")) || word.hasSuffix("preis")
            || word.hasSuffix("betrag")
    }

    private static let codeWords: Set<String> = [
        "code", "codes", "passcode", "passcodes", "otp", "otps", "pin", "totp", "código", "códigos", "codigo",
        "codigos",
        "kode", "kod", "kodu", "koodi", "kód", "codice", "codici", "kodeks", "passcodes", "κωδικός", "код",
        // `type the following six digits`: a count of digits to copy names a code.
        "digits", "dígitos", "chiffres", "ziffern", "cifre",
    ]
    /// Words ending in a code word that are not one-time codes.
    private static let notCodeCodes: Set<String> = [
        "postcode", "zipcode", "barcode", "qrcode", "unicode", "encode", "decode", "encodes", "decodes", "promocode",
        "promocodes", "geocode", "opcode", "opcodes", "transcode", "sourcecode", "gutscheincode", "rabattcode",
        "aktionscode", "gutscheincodes", "rabattcodes", "postleitzahlcode", "barcodes", "shortcode", "shortcodes",
        "zipcodes", "postcodes",
    ]
    /// Words that, before a code word, make it another code than a one-time one.
    private static let qualifiers: Set<String> = [
        "promo", "promotional", "promotion", "discount", "coupon", "voucher", "gift", "referral", "invite",
        "invitation", "postal", "zip", "post", "area", "country", "dialing", "error", "status", "product", "item",
        "order", "tracking", "qr", "bar", "source", "sku", "tax", "swift", "sort", "routing", "bank", "dress", "colour",
        "color", "hex", "style", "html", "css", "embed", "reference", "booking", "reservation", "ticket", "voucher",
        "gutschein", "rabatt", "aktions", "promocional", "promoción", "promocion", "desconto", "descuento", "cupón",
        "cupon", "cupom", "réduction", "reduction", "cadeau", "regalo", "presente", "postale", "rabais", "parrainage",
        "indicação", "referido", "error", "erro", "erreur", "fehler", "sconto", "buono", "regalo",
        // A payment's approval, a door's or a network's code: a code, but not one that signs anybody in.
        "authorization", "authorisation", "auth", "approval", "backup", "door", "gate", "lockbox", "alarm", "garage",
        "parking",
        "wifi",
        "fi", "course", "class", "exam",
        // A code that no longer works: `your previous code 551234 has expired`.
        "previous", "old", "former", "expired",
    ]
    private static let numberWords: Set<String> = [
        "number", "numbers", "num", "id", "ids", "número", "numero", "numéro", "nummer", "numer", "n°", "nº",
    ]
    private static let numberAbbreviations: Set<String> = ["no", "nr", "núm", "nro", "n"]
    /// Act words that before a number word do not make it a code: a confirmation number is a booking's reference.
    private static let confirmationWords: Set<String> = ["confirmation", "confirmación", "confirmação", "bestätigungs"]
    private static let oneTimeWords: Set<String> = [
        "one", "time", "onetime", "temporary", "single", "einmal", "einmaliges", "einmalig", "temporal", "temporário",
        "temporario", "temporaire", "único", "unico", "usage",
    ]
    private static let passwordWords: Set<String> = [
        "password", "passwort", "contraseña", "senha", "passe", "kennwort", "clave",
    ]
    private static let actWords: Set<String> = [
        "verification", "verify", "verifying", "authentication", "authenticate", "authenticator", "confirm",
        "confirmation", "confirming", "login", "log", "logging", "signin", "sign", "signing", "security", "access",
        "activation", "activate", "validation", "validate", "token", "factor", "step", "mfa", "twofactor",
        "bestätigung", "bestätigungs", "bestätigen", "verifizierung", "verifizierungs", "verifizieren", "anmeldung",
        "anmelde", "anmelden", "sicherheit", "sicherheits", "zugang", "zugangs", "authentifizierung", "freigabe",
        "verificación", "verificacion", "verificar", "confirmación", "confirmacion", "confirmar", "seguridad", "acceso",
        "autenticación", "autenticacion", "validación", "verificação", "verificacao", "confirmação", "confirmacao",
        "segurança", "seguranca", "acesso", "autenticação", "autenticacao", "validação", "vérification", "vérifier",
        "confirmer", "sécurité", "securite", "connexion", "authentification", "accès", "validation", "identification",
        "verifica", "conferma", "accesso", "sicurezza", "autenticazione", "weryfikacyjny", "potwierdzenia",
        "doğrulama", "verificatie", "bevestiging", "inloggen", "anmeldebestätigung",
    ]
    private static let promptWords: Set<String> = [
        "enter", "type", "input", "paste", "ingresa", "ingrese", "introduce", "introduzca", "digite", "insira",
        "informe", "saisissez", "entrez", "saisir", "eingeben", "gib", "geben", "inserisci", "utilisez",
    ]
    private static let meetingWords: Set<String> = [
        "meeting", "meetings", "webinar", "conference", "dial", "reunión", "reunion", "reunião", "réunion",
        "besprechung", "konferenz",
    ]
    /// Words of selling (not those a brand is named with, `Shop`, `Deals`).
    private static let promotionWords: Set<String> = [
        "promo", "promotional", "promotion", "coupon", "coupons", "discount", "discounts", "checkout", "voucher",
        "vouchers", "descuento", "cupón", "cupon", "desconto", "cupom", "rabatt", "gutschein", "réduction",
        "promoción", "promocion", "promoção", "soldes", "sconto", "gift", "shipping",
    ]
    /// Nouns that a code word before them qualifies (`code review`): then it names no code.
    private static let modifiedNouns: Set<String> = [
        "review", "reviews", "reviewer", "of", "snippet", "snippets", "editor", "base", "change", "changes", "owner",
        "owners", "sample", "samples", "example", "examples", "block", "blocks", "quality", "coverage", "freeze",
        "search", "scanning", "generation", "camp", "academy", "challenge", "school", "club", "repository", "repo",
        "style", "smell", "signing", "analysis", "completion", "assistant", "interpreter", "red", "new", "reuse",
    ]
    private static let notCodeWords: Set<String> = [
        "order", "orders", "invoice", "invoices", "ticket", "tickets", "reference", "ref", "booking", "reservation",
        "tracking", "track", "shipment", "parcel", "package", "account", "acct", "customer", "member", "membership",
        "transaction", "receipt", "case", "claim", "policy", "sku", "item", "model", "serial", "part", "flight",
        "seat", "gate", "room", "phone", "tel", "telephone", "mobile", "cell", "fax", "call", "whatsapp", "zip",
        "postal", "postcode", "plz", "cep", "apt", "suite", "box",
        "floor", "card", "ending", "ends", "visa", "mastercard", "amex", "iban", "bic", "routing", "vat", "tax",
        "price", "total", "subtotal", "amount", "balance", "paid", "cost", "fee", "points", "promo", "coupon",
        "discount", "voucher", "gift", "referral", "error", "status", "version", "build", "release", "issue",
        "commit", "pedido", "pedidos", "factura", "fatura", "commande", "facture", "bestellung", "rechnung",
        "auftrag", "referencia", "referência", "référence", "billet", "boleto", "rastreamento", "seguimiento",
        "suivi", "sendung", "preis", "gesamt", "summe", "betrag", "precio", "importe", "preço", "valor", "prix",
        "montant", "teléfono", "telefono", "telefone", "téléphone", "telefon", "móvil", "celular", "handy",
        "cupón", "cupom", "gutschein", "rabatt", "desconto", "descuento", "réduction", "reserva", "réservation",
        "buchung", "vuelo", "voo", "vol", "flug", "envío", "envio", "livraison", "lieferung", "paquete", "pacote",
        "colis", "paket", "cliente", "client", "kunde", "kunden", "cuenta", "conta", "compte", "konto", "contract",
        "contrato", "vertrag", "contrat", "quote", "estimate", "pago", "pagamento", "paiement", "zahlung", "payment",
        "refund", "reembolso", "remboursement", "erstattung", "hotline", "fone", "tél", "tlf", "pr", "pull",
        "unit", "office", "building", "apartment", "apto", "piso",
        "cedex", "copyright", "ordem", "nota", "recibo", "reçu", "quittung", "lote", "batch", "serie",
        "série", "registration", "license", "licence", "licencia", "licença", "lizenz", "vin", "isbn", "ean", "upc",
        "ssn", "social",
    ]

    /// The Chinese, Japanese and Korean labels: the longest match at `index`.
    private static func eastAsian(_ scalars: [Unicode.Scalar], at index: Int) -> (Int, CodeLabel.Meaning)? {
        var best: (Int, CodeLabel.Meaning)?
        for (word, meaning) in eastAsianWords {
            let count = word.count
            guard index + count <= scalars.count, count > (best?.0 ?? 0) else { continue }
            if zip(scalars[index..<index + count], word).allSatisfy({ $0 == $1 }) { best = (count, meaning) }
        }
        return best
    }

    private static let eastAsianWords: [([Unicode.Scalar], CodeLabel.Meaning)] = eastAsianTable.map {
        (Array($0.0.unicodeScalars), $0.1)
    }
    private static let eastAsianTable: [(String, CodeLabel.Meaning)] = [
        ("验证码", .code), ("驗證碼", .code), ("校验码", .code), ("校驗碼", .code), ("动态码", .code), ("動態碼", .code),
        ("确认码", .code), ("確認碼", .code), ("安全码", .code), ("安全碼", .code), ("动态密码", .code), ("一次性密码", .code),
        ("认证码", .code), ("認證碼", .code), ("登录码", .code), ("口令", .code),
        ("認証コード", .code), ("確認コード", .code), ("認証番号", .code), ("確認番号", .notCode), ("ワンタイムパスワード", .code),
        ("セキュリティコード", .code), ("検証コード", .code), ("ログインコード", .code), ("コード", .code), ("暗証番号", .code),
        ("인증번호", .code), ("인증 번호", .code), ("인증코드", .code), ("인증 코드", .code), ("확인 코드", .code),
        ("확인코드", .code), ("보안 코드", .code), ("보안코드", .code), ("코드", .code), ("일회용 비밀번호", .code),
        ("验证", .act), ("驗證", .act), ("认证", .act), ("認證", .act), ("登录", .act), ("登錄", .act), ("登入", .act),
        ("認証", .act), ("確認", .act), ("ログイン", .act), ("인증", .act), ("확인", .act), ("로그인", .act),
        ("输入", .prompt), ("輸入", .prompt), ("入力", .prompt), ("입력", .prompt),
        ("订单", .notCode), ("訂單", .notCode), ("注文", .notCode), ("주문", .notCode), ("电话", .notCode), ("電話", .notCode),
        ("전화", .notCode), ("邮编", .notCode), ("郵便番号", .notCode), ("发票", .notCode), ("價格", .notCode), ("价格", .notCode),
        ("金额", .notCode), ("金額", .notCode), ("合計", .notCode), ("合计", .notCode), ("运单", .notCode), ("快递", .notCode),
        ("追跡番号", .notCode), ("お問い合わせ番号", .notCode), ("会员", .notCode), ("会員番号", .notCode), ("手机", .notCode),
        ("优惠码", .notCode), ("優惠碼", .notCode), ("クーポン", .notCode), ("쿠폰", .notCode), ("할인", .notCode),
        ("会议", .meeting), ("會議", .meeting), ("会議", .meeting), ("회의", .meeting),
    ]
}
