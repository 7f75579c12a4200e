/// Message text as it travels after `DATA` (RFC 5321 §4.1.1.4, §4.5.2): every line end CRLF (a bare LF or bare CR
/// becomes CRLF, so that no server sees a bare line end, the smuggling vector of CVE-2023-51764), a `.` doubled at
/// the start of a line, a CRLF added if the text does not end with one, then the end mark `.` CRLF.
public enum SMTPDataEncoder {
    /// The bytes to send after the `354`, end mark included.
    public static func encode(_ content: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(content.count + content.count / 64 + 5)
        var atLineStart = true
        var index = 0
        while index < content.count {
            let byte = content[index]
            index += 1
            switch byte {
            case 0x0D:
                if index < content.count, content[index] == 0x0A { index += 1 }
                output += [0x0D, 0x0A]
                atLineStart = true
            case 0x0A:
                output += [0x0D, 0x0A]
                atLineStart = true
            default:
                if atLineStart && byte == UInt8(ascii: ".") { output.append(byte) }
                output.append(byte)
                atLineStart = false
            }
        }
        if !atLineStart { output += [0x0D, 0x0A] }
        output += [UInt8(ascii: "."), 0x0D, 0x0A]
        return output
    }
}
