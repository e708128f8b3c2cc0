// Package audio groups the audio code shared by the service and the engines:
//   - probe: upload-time format and duration detection in pure Go (the 415
//     and 400 checks of POST /v1/transcriptions).
//   - decode: WAV and MP3 decoding to PCM samples for the speech engine, and
//     for PII redaction's WAV rendition of an MP3.
//   - tone: overwriting stretches of a WAV with a tone, in place (PII
//     redaction of the recording).
package audio
