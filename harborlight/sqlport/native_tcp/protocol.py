"""The numbers of ClickHouse's native TCP protocol (src/Core/Protocol.h, src/Core/ProtocolDefines.h): packet
types both ways, the revisions that change what a packet carries, and the block compression methods."""

# Packets a client sends (Protocol::Client).
CLIENT_HELLO, CLIENT_QUERY, CLIENT_DATA, CLIENT_CANCEL, CLIENT_PING = 0, 1, 2, 3, 4

# Packets the server sends (Protocol::Server).
SERVER_HELLO, SERVER_DATA, SERVER_EXCEPTION, SERVER_PROGRESS, SERVER_PONG = 0, 1, 2, 3, 4
SERVER_END_OF_STREAM, SERVER_PROFILE_INFO, SERVER_TOTALS, SERVER_EXTREMES = 5, 6, 7, 8

# Revisions (a revision and a protocol version are the same number).
TEMPORARY_TABLES = 50264  # a data packet names its (external) table
TOTAL_ROWS_IN_PROGRESS = 51554
BLOCK_INFO = 51903
CLIENT_INFO = 54032
SERVER_TIMEZONE = 54058
QUOTA_KEY_IN_CLIENT_INFO = 54060
SERVER_DISPLAY_NAME = 54372
VERSION_PATCH = 54401
CLIENT_WRITE_INFO = 54420  # progress carries written rows and bytes
SETTINGS_AS_STRINGS = 54429
INTERSERVER_SECRET = 54441
OPENTELEMETRY = 54442
DISTRIBUTED_DEPTH = 54448
INITIAL_QUERY_START_TIME = 54449
PARALLEL_REPLICAS = 54453
ADDENDUM = 54458  # after the hellos the client sends its quota key
PARAMETERS = 54459
SERVER_QUERY_TIME_IN_PROGRESS = 54460
PASSWORD_COMPLEXITY_RULES = 54461
INTERSERVER_SECRET_V2 = 54462  # the server's hello carries a nonce
TOTAL_BYTES_IN_PROGRESS = 54463
# The highest revision this server speaks: the hello answers it and both sides use the lower of it and the
# client's. 54464 adds timezone updates and 54465+ sparse columns, ssh keys, ... (none needed by a reader).
SERVER_REVISION = TOTAL_BYTES_IN_PROGRESS

QUERY_KIND_NONE = 0
INTERFACE_TCP = 1
STAGE_COMPLETE = 2

SETTING_IMPORTANT, SETTING_CUSTOM = 0x01, 0x02  # the flags of a setting written as a string

# Compressed frames (src/Compression/CompressionInfo.h): the method byte after the 16-byte checksum.
METHOD_NONE, METHOD_LZ4, METHOD_ZSTD = 0x02, 0x82, 0x90
