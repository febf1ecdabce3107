import CCurl
import FoundationEssentials

/// HTTP dates: all three RFC 9110 forms are read; IMF-fixdate is written. IMF-fixdate, which servers
/// send on every tile, is read without allocating; anything else goes to libcurl, the judge of odd input.
enum HTTPDate {
    static func parse(_ text: String) -> Int64? {
        if let seconds = fixdate(text) { return seconds }
        let seconds = curl_getdate(text, nil)
        return seconds == -1 ? nil : Int64(seconds)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, written by hand: strftime's names follow the locale.
    static func format(_ unixSeconds: Int64) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        // In Int: gmtime_r's tm_year reaches Int32.max, so the year overflows Int32 for a stored
        // Last-Modified that libcurl read as year 2147483647 in a zone west of GMT.
        let year = Int(parts.tm_year) + 1900
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(year) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let monthKeys = months.map { key($0.utf8) }

    /// Seconds since 1970 for a well-formed IMF-fixdate from 1970 to 9999 (weekday not checked,
    /// as libcurl does not check it); nil for anything else.
    static func fixdate(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { b -> Int64? in
            guard b.count == 29, b[3] == UInt8(ascii: ","), b[25...].elementsEqual(" GMT".utf8),
                  [4, 7, 11, 16].allSatisfy({ b[$0] == UInt8(ascii: " ") }),
                  b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"),
                  let month = monthKeys.firstIndex(of: key(b[8..<11])).map({ $0 + 1 }),
                  let day = number(b[5..<7]), let year = number(b[12..<16]),
                  let hour = number(b[17..<19]), let minute = number(b[20..<22]), let second = number(b[23..<25]),
                  year >= 1970, hour < 24, minute < 60, second < 60,
                  day >= 1, day <= daysIn(month: month, year: year)
            else { return nil }
            let days = daysSince1970(year: year, month: month, day: day)
            return Int64(days * 86_400 + hour * 3_600 + minute * 60 + second)
        }
    }

    private static func key<Letters: Sequence<UInt8>>(_ letters: Letters) -> Int {
        letters.reduce(0) { $0 << 8 | Int($1) }
    }

    private static func number(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The proleptic Gregorian day count, counted from March so that leap days fall last.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400, yearOfEra = y % 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
