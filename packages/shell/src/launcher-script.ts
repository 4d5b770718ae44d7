/**
 * The launcher's program, run as `perl -e LAUNCHER_SCRIPT <socket path>`. It listens on the
 * socket, reads requests from stdin and answers on stdout, one line each:
 *
 * - request: `<payload bytes>\n<payload>`, the payload's fields NUL-separated: id, stdout token,
 *   stderr token (hex), cwd, umask (decimal), executable, argument count, the arguments, then
 *   `NAME=value` environment entries to the end;
 * - `ready` once it listens;
 * - `S <id> <pid> <stdout inode> <stderr inode> <start ticks>` once the command was exec'd;
 * - `F <id> <errno>` when it could not be (fork, chdir or exec failed, or a stream never came);
 * - `E <id> <wait status>` when it was reaped.
 *
 * A connection to the socket is a stream of a pending request only once it has sent that
 * request's 16-byte token; anything else is closed, and unidentified connections are few and
 * short-lived (64 at most, 2 s each). The child gets a new session, stdin from /dev/null, the two
 * streams as stdout and stderr, the request's umask, cwd and exactly its environment, and no
 * other descriptor: every one the launcher inherited is closed at its start, and every one it
 * opens is close-on-exec. At end of stdin (the host is gone) it removes its socket directory and
 * exits; running commands are left to run, as a directly spawned one would be.
 */
export const LAUNCHER_SCRIPT = String.raw`
use strict; use warnings;
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK);
use POSIX ();
use Errno qw(EINTR EAGAIN EWOULDBLOCK ETIMEDOUT);
my ($path, $dir) = @ARGV;
{
  opendir(my $d, "/proc/self/fd") or die "no /proc/self/fd";
  my $own = fileno($d);
  my @fds = grep { /^\d+$/ && $_ > 2 && $_ != $own } readdir($d);
  closedir($d);
  POSIX::close($_) for @fds;
}
socket(my $listen, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
bind($listen, pack_sockaddr_un($path)) or die "bind: $!";
listen($listen, 128) or die "listen: $!";
fcntl($listen, F_SETFL, fcntl($listen, F_GETFL, 0) | O_NONBLOCK) or die "fcntl: $!";
# The self-pipe: a child that exits between the waitpid sweep and select must wake select, and a
# signal handler that does nothing would leave select to sleep out its timeout.
pipe(my $wake_r, my $wake_w) or die "pipe: $!";
for my $end ($wake_r, $wake_w) { fcntl($end, F_SETFL, fcntl($end, F_GETFL, 0) | O_NONBLOCK) or die "fcntl: $!" }
$SIG{CHLD} = sub { syswrite($wake_w, "x") };
$SIG{PIPE} = 'IGNORE';
my $TOKEN = 16; my $MAX_UNKNOWN = 64;
my (%pending, %by_token, %unknown, %early, %running);
my $in = ''; my $listen_paused = 0;
sub reply { my $line = shift; my $off = 0; while ($off < length $line) { my $n = syswrite(STDOUT, $line, length($line) - $off, $off); if (!defined $n) { next if $! == EINTR; finish() } $off += $n } }
sub finish { unlink $path; rmdir $dir; POSIX::_exit(0) }
sub drop_pending { my $id = shift; my $p = delete $pending{$id} or return; delete $by_token{$p->{tok}[0]}; delete $by_token{$p->{tok}[1]}; close($_) for grep { defined } @{$p->{sock}} }
reply("ready\n");
while (1) {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { my $id = delete $running{$pid}; reply("E $id $?\n") if defined $id }
  my $t = time;
  for my $fd (keys %unknown) { if ($unknown{$fd}{until} < $t) { close($unknown{$fd}{sock}); delete $unknown{$fd} } }
  for my $token (keys %early) { if ($early{$token}{until} < $t) { close($early{$token}{sock}); delete $early{$token} } }
  for my $id (keys %pending) { if ($pending{$id}{until} < $t) { drop_pending($id); reply("F $id " . ETIMEDOUT . "\n") } }
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, fileno($wake_r), 1) = 1;
  vec($rin, fileno($listen), 1) = 1 unless $listen_paused;
  vec($rin, $_, 1) = 1 for keys %unknown;
  my $wait = $listen_paused ? 0.05 : 1;
  $listen_paused = 0;
  my $n = select(my $rout = $rin, undef, undef, $wait);
  if ($n < 0) { next if $! == EINTR; die "select: $!" }
  next if $n == 0;
  if (vec($rout, fileno($wake_r), 1)) { my $drained; 1 while (sysread($wake_r, $drained, 4096) // 0) > 0 }
  if (vec($rout, 0, 1)) {
    my $got = sysread(STDIN, $in, 262144, length $in);
    if (!defined $got) { finish() unless $! == EINTR || $! == EAGAIN } elsif ($got == 0) { finish() }
    while ($in =~ /^(\d+)\n/) {
      my $head = length($1) + 1; my $size = $1;
      last if length($in) < $head + $size;
      my $payload = substr($in, $head, $size);
      substr($in, 0, $head + $size) = '';
      my ($id, $t1, $t2, $cwd, $mask, $exe, $argc, @rest) = split(/\0/, $payload, -1);
      my @argv = splice(@rest, 0, $argc);
      my $p = $pending{$id} = { tok => [$t1, $t2], sock => [undef, undef], cwd => $cwd, mask => $mask, exe => $exe, argv => \@argv, env => \@rest, until => time + 6 };
      $by_token{$t1} = [$id, 0]; $by_token{$t2} = [$id, 1];
      # A stream may have connected before its request was read.
      for my $which (0, 1) { my $e = delete $early{$p->{tok}[$which]} or next; delete $by_token{$p->{tok}[$which]}; $p->{sock}[$which] = $e->{sock} }
      start($id) if defined $p->{sock}[0] && defined $p->{sock}[1];
    }
  }
  if (vec($rout, fileno($listen), 1)) {
    while (1) {
      my $conn;
      if (!accept($conn, $listen)) {
        last if $! == EAGAIN || $! == EWOULDBLOCK;
        next if $! == EINTR;
        # Out of descriptors, say: stop watching the listener for a moment instead of spinning.
        $listen_paused = 1; last;
      }
      if (keys(%unknown) >= $MAX_UNKNOWN) {
        my ($oldest) = sort { $unknown{$a}{until} <=> $unknown{$b}{until} } keys %unknown;
        close($unknown{$oldest}{sock}); delete $unknown{$oldest};
      }
      $unknown{fileno($conn)} = { sock => $conn, buf => '', until => time + 3 };
    }
  }
  for my $fd (keys %unknown) {
    next unless vec($rout, $fd, 1);
    my $u = $unknown{$fd};
    my $got = sysread($u->{sock}, $u->{buf}, $TOKEN - length($u->{buf}), length($u->{buf}));
    next if !defined($got) && $! == EINTR;
    if (!$got) { close($u->{sock}); delete $unknown{$fd}; next }
    next if length($u->{buf}) < $TOKEN;
    delete $unknown{$fd};
    my $token = unpack("H*", $u->{buf});
    my $owner = delete $by_token{$token};
    if (!$owner || !$pending{$owner->[0]}) {
      if (keys(%early) < $MAX_UNKNOWN && !$early{$token}) { $early{$token} = { sock => $u->{sock}, until => time + 3 } } else { close($u->{sock}) }
      next;
    }
    my $p = $pending{$owner->[0]};
    $p->{sock}[$owner->[1]] = $u->{sock};
    start($owner->[0]) if defined $p->{sock}[0] && defined $p->{sock}[1];
  }
}
sub start {
  my $id = shift;
  my $p = delete $pending{$id};
  my ($out, $err) = @{$p->{sock}};
  pipe(my $er, my $ew) or do { reply("F $id " . ($! + 0) . "\n"); close $out; close $err; return };
  my $pid = fork();
  if (!defined $pid) { my $e = $! + 0; close $out; close $err; close $er; close $ew; reply("F $id $e\n"); return }
  if ($pid == 0) {
    close $er;
    $SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'DEFAULT';
    POSIX::setsid();
    my $ok = open(STDIN, '<', '/dev/null') && open(STDOUT, '>&', $out) && open(STDERR, '>&', $err);
    if ($ok) {
      umask($p->{mask});
      $ok = chdir($p->{cwd});
    }
    if ($ok) {
      %ENV = ();
      for my $entry (@{$p->{env}}) { my $at = index($entry, '='); $ENV{substr($entry, 0, $at)} = substr($entry, $at + 1) if $at > 0 }
      my @argv = @{$p->{argv}};
      exec { $p->{exe} } @argv;
    }
    syswrite($ew, pack('N', $! + 0));
    POSIX::_exit(127);
  }
  close $ew;
  my @inodes = ((stat $out)[1], (stat $err)[1]);
  close $out; close $err;
  my $status = '';
  while (1) { my $got = sysread($er, $status, 4, length $status); last if defined $got && ($got == 0 || length($status) == 4); last if !defined $got && $! != EINTR }
  close $er;
  if (length($status) == 4) { waitpid($pid, 0); reply("F $id " . unpack('N', $status) . "\n"); return }
  my $ticks = 0;
  if (open(my $stat, '<', "/proc/$pid/stat")) { my $line = <$stat>; close $stat; if (defined $line && $line =~ /\)\s+(.*)$/s) { my @f = split(' ', $1); $ticks = $f[19] // 0 } }
  $running{$pid} = $id;
  reply("S $id $pid $inodes[0] $inodes[1] $ticks\n");
}
`;
