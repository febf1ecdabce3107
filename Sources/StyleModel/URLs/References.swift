import Basics
import PackStore

/// URLs in a style or TileJSON, resolved against its URL and vetted before anything is stored or fetched:
/// `file://`, other unknown schemes, unresolvable paths and what `URLSyntax` refuses are never fetched.
enum References {
    /// The absolute http, https or mapbox URL that `reference` (at `field` of the document at
    /// `document`) names.
    static func resolve(_ reference: String, in document: String, field: String) throws -> String {
        let place = "\(field) of \(document)"
        if let archive = ArchiveURL.archiveURL(of: reference) {
            // Only a tiled source's `url` names an archive, and only an archive names its tiles.
            guard (field.hasPrefix("sources.") && field.hasSuffix(".url")) || sameArchive(reference, document) else {
                throw StyleError.unsupportedScheme(url: reference, field: place)
            }
            return ArchiveURL.prefix + (try resolve(archive, in: document, field: field))
        }
        guard !reference.isEmpty else {
            throw StyleError.invalidField(url: document, field: field, reason: "empty URL")
        }
        guard let absolute = URLString.resolve(reference, against: document) else {
            throw StyleError.unresolvableReference(reference: reference, field: place, base: document)
        }
        guard URLString.hasFetchableScheme(absolute) || sameImportedFile(absolute, document) else {
            throw StyleError.unsupportedScheme(url: absolute, field: place)
        }
        // A URL the HTTP client would refuse fails here, naming its field, not at request time.
        if let problem = URLSyntax.problem(in: absolute, allowingTokens: true) {
            throw StyleError.invalidField(url: document, field: field, reason: "\"\(absolute)\" \(problem)")
        }
        return absolute
    }

    /// An archive's TileJSON (made from its metadata) names its tiles under its own URL.
    private static func sameArchive(_ url: String, _ document: String) -> Bool {
        ArchiveURL.archiveURL(of: document) != nil && url.hasPrefix(document + "/")
    }

    /// An imported file's documents (its pack's synthetic style and its TileJSON) name its tiles
    /// in its own namespace (`ImportedFiles`); no other document may.
    private static func sameImportedFile(_ url: String, _ document: String) -> Bool {
        ImportedFiles.isImported(url) && URLString.authority(of: url) == URLString.authority(of: document)
            && URLString.scheme(of: url) == URLString.scheme(of: document)
    }
}
