import nock from "nock";

// Every test file starts with the network closed except the loopback interface, where the
// scripted model, the git server and the app's own HTTP server listen.
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host));
