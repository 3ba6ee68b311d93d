"""The errors the importers and the exporter raise for bad input: their message is one line."""


class TransferError(ValueError):
    """Bad input: the CLI prints the message as one line and exits non-zero; the API answers 400."""


class UnknownJob(TransferError, LookupError):
    """No telemetry is stored under that job name: the API answers 404."""


class UnknownTrial(TransferError, LookupError):
    """No agent events are stored under that trial name: the API answers 404."""


class FileTooLarge(TransferError):
    """A file past the size limit of the route that received it: the API answers 413."""

    http_status = 413
